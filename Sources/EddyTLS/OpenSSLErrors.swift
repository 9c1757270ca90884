import COpenSSL

/// OpenSSL's error queue as text. The queue is per thread: it is read and emptied on the thread
/// whose call failed, right after the call.
enum OpenSSLErrors {
    /// Every queued reason, oldest first, joined; `fallback` when the queue is empty.
    static func drain(fallback: String = "unknown OpenSSL error") -> String {
        var reasons: [String] = []
        while true {
            let code = eddy_ssl.err_get()
            if code == 0 { break }
            var text = [CChar](repeating: 0, count: 256)
            eddy_ssl.err_string(code, &text, text.count)
            reasons.append(String(cString: text))
        }
        return reasons.isEmpty ? fallback : reasons.joined(separator: "; ")
    }

    /// Empties the queue, so that SSL_get_error after the next call sees only that call's errors
    /// (SSL_get_error(3): "the current thread's OpenSSL error queue must be empty").
    static func clear() { eddy_ssl.err_clear() }
}
