/// What a download configuration selects of a multivariant asset: the primary variant, the
/// auxiliary ones, and every media playlist to fetch, each once (the primary's first).
public struct AssetSelection: Equatable, Sendable {
    public var primary: Variant
    public var auxiliary: [Variant]
    public var renditions: [SelectedRendition]

    /// The URIs to fetch, in order.
    public var uris: [String] { renditions.map(\.uri) }
}
