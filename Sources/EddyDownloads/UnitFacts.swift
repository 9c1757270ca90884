/// What a download's progress needs to know of one unit of its plan, fixed when the plan is made
/// (see `ProgressTally`).
struct UnitFacts: Equatable {
    /// Its rendition (an index into the plan's), or nil (the multivariant playlist).
    var rendition: Int?
    /// It counts as a segment (segments and media seconds).
    var isSegment = false
    /// A segment's media time in its rendition, and its duration.
    var start = 0.0
    var duration = 0.0
    /// Its length when the plan knows it (a byte range); nil otherwise, its bytes then estimated.
    var exactBytes: Int?
}
