/// Why bytes were not taken as an MPD: said in a 400 at job creation or logged with a 502
/// through the proxy.
public struct MPDError: Error, Equatable, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
