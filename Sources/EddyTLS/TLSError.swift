/// Why a TLS context could not be made: a file that does not load, a key that does not match its
/// certificate, or libssl missing. The description names the file and OpenSSL's reasons.
public struct TLSError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
