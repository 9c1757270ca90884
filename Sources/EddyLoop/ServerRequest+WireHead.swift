import CLibevent
import EddyCore

extension ServerRequest {
    /// The head of a complete response of `block` and `extra` written in one piece: evhttp prints
    /// the status line's reason phrase verbatim (`HTTP/1.1 200 %s` CRLF), so the fields it does
    /// not own follow the phrase there, as one string, instead of an `evhttp_add_header` (three
    /// allocations and a check) and a `vfprintf` each, which were most of a small hit's head
    /// (issue 33). evhttp still gets the fields it acts on (`HeaderBlock.evhttpOwns`). Returns
    /// the phrase to send, or nil (nothing set) when a field can not go verbatim.
    func wireHead(_ block: HeaderBlock, _ extra: HTTPHeaders, status: Int) -> String? {
        guard let wire = block.wire, extra.allSatisfy({ HeaderBlock.isVerbatim($0.name, $0.value) }) else { return nil }
        self.status = status
        var text = ReasonPhrase.of(status) + "\r\n" + wire
        let out = evhttp_request_get_output_headers(raw)
        for f in block.evhttpFields { evhttp_add_header(out, f.name, f.value) }
        for (n, v) in extra {
            if HeaderBlock.evhttpOwns(n) { evhttp_add_header(out, n, v) } else { text += n + ": " + v + "\r\n" }
        }
        text.removeLast() // evhttp ends the line itself ("\r\n" is one Character)
        return text
    }
}
