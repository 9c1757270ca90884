import EddyCore
import EddyLoop
import Foundation

/// How the admin API answers: JSON with sorted keys, never cached; errors as a status and
/// `{"error": "one line"}`.
enum AdminJSON {
    static func send<T: Encodable>(_ request: ServerRequest, _ status: Int, _ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var h = HTTPHeaders()
        h.set("Content-Type", "application/json")
        h.set("Cache-Control", "no-store")
        let body = (try? encoder.encode(value)).map { Array($0) + [10] } ?? Array("{}\n".utf8)
        request.send(status: status, headers: h, body: request.method == "HEAD" ? [] : body)
    }

    static func error(_ request: ServerRequest, _ status: Int, _ message: String) {
        send(request, status, ["error": message])
    }
}
