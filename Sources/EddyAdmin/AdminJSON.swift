import EddyCore
import EddyLoop
import Foundation

/// How the admin API answers: JSON with sorted keys, never cached; errors as a status and
/// `{"error": "one line"}`.
package enum AdminJSON {
    package static func send<T: Encodable>(_ request: ServerRequest, _ status: Int, _ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var h = HTTPHeaders()
        h.set("Content-Type", "application/json")
        h.set("Cache-Control", "no-store")
        let body = (try? encoder.encode(value)).map { Array($0) + [10] } ?? Array("{}\n".utf8)
        request.send(status: status, headers: h, body: request.method == "HEAD" ? [] : body)
    }

    package static func error(_ request: ServerRequest, _ status: Int, _ message: String) {
        send(request, status, ["error": message])
    }

    /// 405 with the methods the resource allows (RFC 9110 section 15.5.6 requires `Allow`); HEAD
    /// goes with GET, except on streams.
    package static func methodNotAllowed(_ request: ServerRequest, allow: [String], stream: Bool = false) {
        let methods = allow.contains("GET") && !stream ? allow + ["HEAD"] : allow
        var h = HTTPHeaders()
        h.set("Allow", methods.joined(separator: ", "))
        h.set("Content-Type", "application/json")
        h.set("Cache-Control", "no-store")
        let body = "{\"error\":\"\(request.method) is not allowed here; use \(methods.joined(separator: ", "))\"}\n"
        request.send(status: 405, headers: h, body: request.method == "HEAD" ? [] : Array(body.utf8))
    }
}
