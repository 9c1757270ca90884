/// Why an upstream transfer ended without completing.
public enum UpstreamError: Error, Equatable, CustomStringConvertible {
    /// The target resolved to an internal address and the request was not allowed there.
    case internalAddress
    /// Connecting, resolving or TLS failed.
    case connect(String)
    /// The transfer stalled or took too long.
    case timeout(String)
    /// The connection broke mid-response.
    case transfer(String)
    /// eddy cancelled it.
    case cancelled
    /// The upstream gate (allow-list and address policy) refused the URL; nothing was sent.
    case refused(String)

    public var description: String {
        switch self {
        case .internalAddress: return "target resolves to an internal address"
        case let .connect(m): return "connect: \(m)"
        case let .timeout(m): return "timeout: \(m)"
        case let .transfer(m): return "transfer: \(m)"
        case .cancelled: return "cancelled"
        case let .refused(m): return "refused: \(m)"
        }
    }

    /// True when the origin gave no sign of being there: connecting or resolving failed, or it
    /// did not answer in time (a black-holed route).
    public var saysOriginAbsent: Bool {
        switch self {
        case .connect, .timeout: return true
        default: return false
        }
    }

    /// True when the client should see 504 rather than 502.
    public var isTimeout: Bool { if case .timeout = self { return true } else { return false } }
}

extension UpstreamError {
    /// No connection or no answer at all: nothing of the request reached a server that answered.
    public var isConnectionFailure: Bool {
        switch self {
        case .connect, .timeout: return true
        default: return false
        }
    }
}
