import EddyCache
import EddyCore

extension DownloadPlan {
    /// The most bytes one unit of a file download asks for: small enough that the window's
    /// fetches share the work evenly to the end and a retry loses little, large enough that a
    /// response's latency costs little (at 2 MB/s, 40 ms is 1% of a unit).
    static let maxFileUnit = 8 << 20

    /// The plan of a file download (`DownloadKind.file`): the file as block-aligned ranges,
    /// `concurrency` of them at least when the file is large enough, in file order so that a
    /// player watching from the start is served first. One unit for the whole body when the
    /// length is unknown or the origin ignores ranges (it is then read once, sequentially).
    /// `key`: the staging key a refresh fetches a new version under (nil: the URL's).
    static func file(url: UpstreamURL, length: Int?, acceptsRanges: Bool, concurrency: Int, key: String? = nil) -> DownloadPlan {
        var plan = DownloadPlan()
        plan.isFile = true
        plan.fileLength = length
        let name = url.pathAndQuery
        guard let length, length > 0, acceptsRanges else {
            plan.units = [Unit(url: url, range: length == 0 ? 0..<0 : nil, kind: .file, name: name, key: key)]
            return plan
        }
        let blocks = CacheStore.blocks
        let share = (length + max(concurrency, 1) - 1) / max(concurrency, 1)
        let size = min(maxFileUnit, max(blocks.size, blocks.floor(share + blocks.size - 1)))
        var start = 0
        while start < length {
            let end = min(start + size, length)
            plan.units.append(Unit(url: url, range: start..<end, kind: .file, name: "\(name) bytes=\(start)-\(end - 1)", key: key))
            start = end
        }
        return plan
    }

    /// A file download's bytes held, as sorted, merged ranges (`done` says which units are stored).
    func heldRanges(done: [Bool]) -> [Range<Int>] {
        guard isFile else { return [] }
        let held = units.indices.filter { $0 < done.count && done[$0] }.compactMap { units[$0].range ?? fileLength.map { 0..<$0 } }
        return ByteRangeSet(held.filter { !$0.isEmpty }).ranges
    }
}
