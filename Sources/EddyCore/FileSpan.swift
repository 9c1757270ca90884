/// Bytes of an open file, handed from the cache to the server so that they can be sent with
/// sendfile without the layers between ever touching a descriptor (Media3's `CacheSpan`, for
/// bytes that are on disk). Valid while the cached resource it came from is open.
public struct FileSpan: Sendable, Equatable {
    /// The open file.
    public let descriptor: Int32
    /// The first byte, in the file.
    public let offset: Int
    /// The number of bytes.
    public let length: Int

    public init(descriptor: Int32, offset: Int, length: Int) {
        self.descriptor = descriptor
        self.offset = offset
        self.length = length
    }
}
