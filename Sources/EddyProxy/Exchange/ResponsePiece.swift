/// A piece of a response body: literal bytes (multipart framing) or a span of the resource.
enum ResponsePiece {
    case bytes([UInt8])
    /// Resource bytes; `upperBound == Int.max` means "to the end, length not yet known".
    case resource(Range<Int>)
}
