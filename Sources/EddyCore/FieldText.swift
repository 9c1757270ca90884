/// Field values as text without losing a byte. RFC 9110 section 5.5 lets a value hold obs-text
/// (0x80-0xFF), which has no charset: a value read as UTF-8 turns an invalid byte into U+FFFD,
/// and the origin then gets other bytes than the client sent (issue 57: `0xff 0xfe` arrived as
/// two U+FFFD, where nginx passes bytes as they came). A value holding such bytes is read one
/// scalar a byte (ISO-8859-1) and written back the same way, so bytes round-trip exactly. Pure.
public enum FieldText {
    /// The text of a value's bytes: ASCII as it is, anything else a scalar per byte.
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }

    /// The bytes of a value `decode` made (a scalar per byte); a value holding a scalar past
    /// U+00FF did not come from `decode`, and goes as its UTF-8.
    public static func encode(_ text: String) -> [UInt8] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return Array(text.utf8) }
        guard text.unicodeScalars.allSatisfy({ $0.value <= 0xFF }) else { return Array(text.utf8) }
        return text.unicodeScalars.map { UInt8($0.value) }
    }
}
