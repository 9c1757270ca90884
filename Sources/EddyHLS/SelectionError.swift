/// Why a configuration selects nothing, with what exists, so that the message alone lets a user
/// fix the request (`eddy download add` and `POST /api/downloads` answer it as a 400).
public struct SelectionError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
