/// A multivariant playlist cut down to what was downloaded, for playback with the origin gone:
/// a player must never switch to a variant or rendition whose segments are not there.
///
/// - An EXT-X-MEDIA with a URI stays when `has(uri)`; one without (muxed audio, closed captions)
///   stays.
/// - A variant stays when `has(its URI)` and each AUDIO or VIDEO group it names keeps a
///   rendition (audio in its own playlist is not optional). A SUBTITLES group with nothing left
///   is taken off the variant instead (RFC 8216bis section 4.4.6.2: a named group must exist).
/// - EXT-X-I-FRAME-STREAM-INF and EXT-X-IMAGE-STREAM-INF stay when `has(uri)`.
/// - A group whose DEFAULT=YES rendition was dropped gets its first remaining rendition as
///   DEFAULT=YES, AUTOSELECT=YES (section 4.4.6.1: DEFAULT=YES needs AUTOSELECT=YES).
///
/// Every other line is kept byte for byte. `has` gets URIs as written in the playlist.
public enum OfflineMultivariant {
    public static func filter(_ playlist: HLSPlaylist, has: (String) -> Bool) -> HLSPlaylist {
        let lines = playlist.lines
        // Renditions: which stay, by (TYPE, GROUP-ID).
        var keptMedia = Set<Int>()
        var groupKept: [String: [Int]] = [:]
        var groupHasDefault = Set<String>()
        var groupHadDefault = Set<String>()
        var groupExists = Set<String>()
        for (i, line) in lines.enumerated() where HLSPlaylist.tagName(line.text) == "EXT-X-MEDIA" {
            let a = attributes(line.text)
            guard let type = a["TYPE"], let group = a["GROUP-ID"] else { continue }
            let key = type + "\u{0}" + group
            groupExists.insert(key)
            if a.flag("DEFAULT") { groupHadDefault.insert(key) }
            guard a["URI"].map(has) ?? true else { continue }
            keptMedia.insert(i)
            groupKept[key, default: []].append(i)
            if a.flag("DEFAULT") { groupHasDefault.insert(key) }
        }
        var out = playlist
        var drop = Set<Int>()
        for (i, line) in lines.enumerated() {
            switch HLSPlaylist.tagName(line.text) {
            case "EXT-X-MEDIA":
                if !keptMedia.contains(i) && attributes(line.text)["TYPE"] != nil { drop.insert(i) }
            case "EXT-X-I-FRAME-STREAM-INF", "EXT-X-IMAGE-STREAM-INF":
                if let uri = attributes(line.text)["URI"], !has(uri) { drop.insert(i) }
            case "EXT-X-STREAM-INF":
                guard let u = lines[(i + 1)...].firstIndex(where: { HLSPlaylist.isURILine($0.text) }) else { continue }
                let a = attributes(line.text)
                let uri = String(lines[u].text.trimmingOWS())
                let missing = { (type: String, name: String) -> Bool in
                    guard let g = a[name] else { return false }
                    let key = type + "\u{0}" + g
                    return groupExists.contains(key) && groupKept[key] == nil
                }
                if !has(uri) || missing("AUDIO", "AUDIO") || missing("VIDEO", "VIDEO") {
                    drop.formUnion(i...u)
                } else if missing("SUBTITLES", "SUBTITLES") {
                    out.lines[i].text = Substring(setting(line.text, "SUBTITLES", to: nil))
                }
            default: break
            }
        }
        for (key, kept) in groupKept where groupHadDefault.contains(key) && !groupHasDefault.contains(key) {
            let i = kept[0]
            let t = setting(out.lines[i].text, "DEFAULT", to: "YES")
            out.lines[i].text = Substring(setting(Substring(t), "AUTOSELECT", to: "YES"))
        }
        out.lines = out.lines.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
        return out
    }

    private static func attributes(_ line: Substring) -> AttributeList {
        guard let colon = line.firstIndex(of: ":") else { return AttributeList("") }
        return AttributeList(line[line.index(after: colon)...])
    }

    /// The tag line with attribute `name` set to the enumerated `value` (appended when absent), or
    /// removed when `value` is nil. Quoted strings are skipped whole, so a comma inside one never
    /// splits a pair.
    static func setting(_ line: Substring, _ name: String, to value: String?) -> String {
        guard let colon = line.firstIndex(of: ":") else { return String(line) }
        var pairs: [Substring] = []
        var s = line[line.index(after: colon)...]
        while !s.isEmpty {
            var i = s.startIndex
            var quoted = false
            while i != s.endIndex && (quoted || s[i] != ",") {
                if s[i] == "\"" { quoted.toggle() }
                i = s.index(after: i)
            }
            pairs.append(s[..<i])
            s = i == s.endIndex ? s[i...] : s[s.index(after: i)...]
        }
        var found = false
        var out: [String] = []
        for p in pairs {
            guard p.prefix(while: { $0 != "=" }).trimmingOWS() == name else { out.append(String(p)); continue }
            found = true
            if let value { out.append(name + "=" + value) }
        }
        if !found, let value { out.append(name + "=" + value) }
        return String(line[...colon]) + out.joined(separator: ",")
    }
}
