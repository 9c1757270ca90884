/// Why a variant predicate could not be read: what was expected, and where (a 0-based offset in
/// characters), so a user sees `position 14: expected a value after '<='`.
public struct PredicateSyntaxError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public var position: Int

    public init(_ message: String, at position: Int) {
        self.message = message
        self.position = position
    }

    public var description: String { "position \(position): \(message)" }
}
