import Foundation

/// A download's artwork (AVFoundation's assetArtworkData): a PNG or JPEG of at most 1 MiB, its
/// type told by its own first bytes (a claimed type is not trusted). Pure.
public struct Artwork: Equatable, Sendable {
    /// `image/png` or `image/jpeg`.
    public let type: String
    public let bytes: [UInt8]

    /// The most bytes artwork may have.
    public static let maxBytes = 1 << 20

    public init(type: String, bytes: [UInt8]) {
        (self.type, self.bytes) = (type, bytes)
    }

    /// `bytes` as artwork, or why they are not.
    public static func check(_ bytes: [UInt8]) -> Result<Artwork, DownloadInputError> {
        guard bytes.count <= maxBytes else {
            return .failure(DownloadInputError("artwork: \(bytes.count) bytes; at most \(maxBytes) (1 MiB)"))
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .success(Artwork(type: "image/png", bytes: bytes)) }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .success(Artwork(type: "image/jpeg", bytes: bytes)) }
        return .failure(DownloadInputError("artwork: not a PNG or JPEG image"))
    }

    /// A `data:` URI's bytes (RFC 2397, base64 only), nil when `text` is not one.
    public static func dataURI(_ text: String) -> [UInt8]? {
        guard text.hasPrefix("data:"), let comma = text.firstIndex(of: ","),
              text[..<comma].hasSuffix(";base64"),
              let d = Data(base64Encoded: String(text[text.index(after: comma)...]), options: .ignoreUnknownCharacters) else { return nil }
        return [UInt8](d)
    }
}
