/// What an MPD describes, as values: its periods' representations and the segments each lists
/// (ISO/IEC 23009-1 section 5.3). Read from an `MPDDocument` (`MPDDocument.manifest`).
public struct MPDManifest: Equatable, Sendable {
    /// One Period (section 5.3.2) and the representations of its adaptation sets.
    public struct Period: Equatable, Sendable {
        public var id: String?
        /// Seconds from the presentation's start.
        public var start: Double
        /// Seconds, when known (its `@duration`, the next period's start, or the presentation's end).
        public var duration: Double?
        public var representations: [MPDRepresentation]
        /// True when an adaptation set of it carries `ContentProtection` (DRM, section 5.8.4.1).
        public var isProtected: Bool
    }

    /// `type="dynamic"`: live.
    public var isDynamic: Bool
    /// `@mediaPresentationDuration`, seconds.
    public var duration: Double?
    public var periods: [Period]

    /// Every segment of every representation in order, initialization first: what prefetch and
    /// downloads read.
    public var allRepresentations: [MPDRepresentation] { periods.flatMap(\.representations) }
}
