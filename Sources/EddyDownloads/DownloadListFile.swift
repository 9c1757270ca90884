/// A list of downloads as `eddy download add --from FILE` reads it (aria2's `-i`, yt-dlp's
/// `--batch-file`): one download per line, the URL first and then that line's options in the
/// CLI's syntax (`http://o/film.mp4 --title "A film" --rate 2M`). `#` starts a comment where a
/// word could start; blank lines are skipped. Words are split on spaces and tabs; single quotes
/// keep everything literally, double quotes and a backslash as a POSIX shell does (no expansion
/// of any kind). Pure: the CLI reads the file, this splits it.
public struct DownloadListFile: Equatable, Sendable {
    /// One line that names a download.
    public struct Line: Equatable, Sendable {
        /// 1-based, as an editor shows it.
        public var number: Int
        public var words: [String]
    }

    /// A line that could not be split (an unclosed quote), with why.
    public struct BadLine: Equatable, Sendable {
        public var number: Int
        public var reason: String
    }

    public var lines: [Line] = []
    public var bad: [BadLine] = []

    public init(_ text: String) {
        // "\r\n" is one Character in Swift: both end a line.
        for (i, line) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            switch DownloadListFile.words(line) {
            case let .success(words) where !words.isEmpty: lines.append(Line(number: i + 1, words: words))
            case .success: continue
            case let .failure(reason): bad.append(BadLine(number: i + 1, reason: reason.text))
            }
        }
    }

    struct SplitError: Error { var text: String }

    /// The words of one line.
    static func words(_ line: Substring) -> Result<[String], SplitError> {
        var out: [String] = []
        var word = ""
        var inWord = false
        var it = line.makeIterator()
        while let c = it.next() {
            switch c {
            case " ", "\t":
                if inWord { out.append(word); word = ""; inWord = false }
            case "#" where !inWord:
                return .success(out)
            case "'":
                inWord = true
                var closed = false
                while let q = it.next() {
                    if q == "'" { closed = true; break }
                    word.append(q)
                }
                if !closed { return .failure(SplitError(text: "a single quote is not closed")) }
            case "\"":
                inWord = true
                var closed = false
                while let q = it.next() {
                    if q == "\"" { closed = true; break }
                    if q == "\\" {
                        // Inside double quotes a backslash escapes only these (POSIX 2.2.3).
                        guard let e = it.next() else { break }
                        if !["\"", "\\", "$", "`"].contains(e) { word.append("\\") }
                        word.append(e)
                    } else {
                        word.append(q)
                    }
                }
                if !closed { return .failure(SplitError(text: "a double quote is not closed")) }
            case "\\":
                inWord = true
                if let e = it.next() { word.append(e) }
            default:
                inWord = true
                word.append(c)
            }
        }
        if inWord { out.append(word) }
        return .success(out)
    }
}
