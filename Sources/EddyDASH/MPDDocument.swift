internal import CLibXML2

/// An MPEG-DASH manifest (ISO/IEC 23009-1) parsed into libxml2's tree, to rewrite its URLs and
/// write it out again; everything else in it is kept as the origin wrote it.
///
/// Hostile input: the bytes are parsed by libxml2 without network access, without loading or
/// substituting entities, and any document type declaration is refused before parsing (an MPD
/// has none; a DTD is how XXE and "billion laughs" reach a parser). Documents over `maxBytes`
/// and documents whose root is not `MPD` are refused.
public final class MPDDocument {
    /// The largest MPD parsed; an origin's larger answer is refused (a 502 through the proxy).
    public static let maxBytes = 8 << 20
    let doc: xmlDocPtr

    /// Parses `bytes`, or says why they are not an MPD eddy takes.
    public init(_ bytes: [UInt8]) throws {
        guard bytes.count <= MPDDocument.maxBytes else { throw MPDError("the MPD is larger than \(MPDDocument.maxBytes) bytes") }
        if let why = eddy_xml_open() { throw MPDError("libxml2 could not be opened: \(String(cString: why))") }
        if MPDDocument.declaresDoctype(bytes) { throw MPDError("the MPD declares a document type (DTDs and entities are refused)") }
        // XML_PARSE_NONET: nothing fetched; no XML_PARSE_NOENT or XML_PARSE_DTDLOAD: no entity
        // is substituted or loaded. Errors are returned, not printed.
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let parsed = bytes.withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                eddy_xml.read_memory($0, Int32(b.count), "manifest.mpd", nil, options)
            }
        }
        guard let parsed else { throw MPDError("the MPD is not well-formed XML") }
        guard parsed.pointee.intSubset == nil, parsed.pointee.extSubset == nil else {
            eddy_xml.free_doc(parsed)
            throw MPDError("the MPD declares a document type (DTDs and entities are refused)")
        }
        guard let root = eddy_xml.root_element(parsed), MPDDocument.name(root) == "MPD" else {
            eddy_xml.free_doc(parsed)
            throw MPDError("the document's root element is not MPD")
        }
        doc = parsed
    }

    deinit { eddy_xml.free_doc(doc) }

    /// The root `MPD` element.
    var root: xmlNodePtr { eddy_xml.root_element(doc)! }

    /// True when `type="dynamic"` (section 5.3.1.2): a live manifest that changes.
    public var isDynamic: Bool { MPDDocument.attribute(root, "type") == "dynamic" }

    /// `minimumUpdatePeriod` in seconds (an ISO 8601 duration), when the MPD has one.
    public var minimumUpdatePeriod: Double? {
        MPDDocument.attribute(root, "minimumUpdatePeriod").flatMap(ISODuration.seconds)
    }

    /// The document as UTF-8 XML.
    public func serialized() -> [UInt8] {
        var mem: UnsafeMutablePointer<xmlChar>?
        var size: Int32 = 0
        eddy_xml.dump_memory(doc, &mem, &size)
        guard let mem else { return [] }
        defer { eddy_xml_free(mem) }
        return Array(UnsafeBufferPointer(start: mem, count: Int(size)))
    }

    /// True when the bytes hold `<!DOCTYPE` anywhere (a comment or CDATA holding it is refused
    /// too: no MPD needs one).
    static func declaresDoctype(_ bytes: [UInt8]) -> Bool {
        let needle = Array("<!DOCTYPE".utf8)
        guard bytes.count >= needle.count else { return false }
        var i = 0
        while let at = bytes[i...].firstIndex(of: UInt8(ascii: "<")) {
            if at + needle.count <= bytes.count,
               zip(bytes[at..<(at + needle.count)], needle).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) { return true }
            i = at + 1
        }
        return false
    }

    /// An element's local name (namespace prefix aside).
    static func name(_ node: xmlNodePtr) -> String { String(cString: node.pointee.name) }

    static func attribute(_ node: xmlNodePtr, _ name: String) -> String? {
        guard let v = eddy_xml.get_prop(node, name) else { return nil }
        defer { eddy_xml_free(v) }
        return String(cString: v)
    }

    static func text(_ node: xmlNodePtr) -> String {
        guard let v = eddy_xml.get_content(node) else { return "" }
        defer { eddy_xml_free(v) }
        return String(cString: v)
    }

    /// The element children of `node`, in document order.
    static func elements(of node: xmlNodePtr) -> [xmlNodePtr] {
        var out: [xmlNodePtr] = []
        var c = node.pointee.children
        while let n = c {
            if n.pointee.type == XML_ELEMENT_NODE { out.append(n) }
            c = n.pointee.next
        }
        return out
    }
}
