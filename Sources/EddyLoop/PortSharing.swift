/// How a listener shares its port with the listeners of other loops (`HTTPServer`).
public enum PortSharing: Sendable {
    /// A plain listener: a port in use is an error.
    case exclusive
    /// The first listener of a group of loops: it checks that nobody holds the port, then binds
    /// with SO_REUSEPORT so that the group's other listeners can join it.
    case first
    /// Another listener of a group, on the port its first one bound (SO_REUSEPORT).
    case join
}
