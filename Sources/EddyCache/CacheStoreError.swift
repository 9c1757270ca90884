/// A cache directory that can not be used.
public struct CacheStoreError: Error, CustomStringConvertible {
    public let description: String
}
