import EddyCore
import Foundation

extension IndexDatabase {
    /// Ranges as little-endian Int64 pairs.
    static func encode(_ set: ByteRangeSet) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(set.ranges.count * 16)
        for r in set.ranges {
            for v in [r.lowerBound, r.upperBound] { withUnsafeBytes(of: Int64(v).littleEndian) { out.append(contentsOf: $0) } }
        }
        return out
    }

    static func decode(_ bytes: [UInt8]) -> ByteRangeSet {
        var set = ByteRangeSet()
        guard bytes.count % 16 == 0 else { return set }
        var values: [Int] = []
        bytes.withUnsafeBytes { raw in
            for i in stride(from: 0, to: bytes.count, by: 8) {
                values.append(Int(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: Int64.self))))
            }
        }
        for i in stride(from: 0, to: values.count, by: 2) where values[i] < values[i + 1] && values[i] >= 0 {
            set.insert(values[i]..<values[i + 1])
        }
        return set
    }
}
