import Foundation
import Glibc

/// A small blocking HTTP/1.1 client for eddy's admin API (loopback or LAN, plain HTTP): one
/// request per connection (`Connection: close`), the body read to the end, or line by line for
/// server-sent events. What `eddy download` and `eddy variants` talk through.
struct AdminClient {
    /// `host:port` of the admin listener.
    let address: String
    /// The admin listener's bearer token, when it needs one.
    var token: String? = nil

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Sends a request and returns the status and body.
    func call(_ method: String, _ path: String, json: Data? = nil) throws -> (Int, Data) {
        let fd = try connect()
        defer { close(fd) }
        try send(fd, method, path, json)
        var (status, head, body) = try readHead(fd)
        try received(fd) { body.append($0) }
        if head.lowercased().contains("transfer-encoding: chunked") { body = AdminClient.unchunk(body) }
        return (status, body)
    }

    /// Streams a server-sent events response, calling `onData` with each `data:` payload until the
    /// server ends the stream.
    func events(_ path: String, onData: (Data) -> Void) throws {
        let fd = try connect()
        defer { close(fd) }
        try send(fd, "GET", path, nil)
        var pending = Data()
        try received(fd) { chunk in
            pending.append(chunk)
            // Chunk-size lines and the head never start with "data: ", so a line scan suffices.
            while let nl = pending.firstIndex(of: 10) {
                let line = pending[pending.startIndex..<nl]
                pending = Data(pending[(nl + 1)...])
                if line.starts(with: Data("data: ".utf8)) { onData(Data(line.dropFirst(6))) }
            }
        }
    }

    /// Streams the body of `GET path` (with `Range` for `range`) into `file` at the range's
    /// offset, without holding it in memory; fails unless the answer is 200 or 206 with exactly
    /// the bytes asked for.
    func save(_ path: String, range: Range<Int>?, length: Int, to file: Int32) throws {
        let fd = try connect()
        defer { close(fd) }
        let extra = range.map { "Range: bytes=\($0.lowerBound)-\($0.upperBound - 1)\r\n" } ?? ""
        try send(fd, "GET", path, nil, extra: extra)
        let (status, _, first) = try readHead(fd)
        guard status == (range == nil ? 200 : 206) else {
            throw Failure(description: "\(path): \(status) \(String(decoding: first, as: UTF8.self).prefix(200))")
        }
        var offset = range?.lowerBound ?? 0
        let start = offset
        func write(_ chunk: Data) throws {
            let written = chunk.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, off_t(offset)) }
            guard written == chunk.count else { throw Failure(description: "cannot write: \(String(cString: strerror(errno)))") }
            offset += chunk.count
        }
        try write(first)
        try received(fd, write)
        let want = range?.count ?? length
        guard offset - start == want else { throw Failure(description: "\(path): \(offset - start) of \(want) bytes came") }
    }

    /// Reads up to the end of the response head: its status, its text, and the body bytes that
    /// came with it.
    private func readHead(_ fd: Int32) throws -> (Int, String, Data) {
        var raw = Data()
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while raw.range(of: Data("\r\n\r\n".utf8)) == nil {
            let n = recv(fd, &buf, buf.count, 0)
            guard n > 0 else { throw Failure(description: "no answer from \(address)") }
            raw.append(contentsOf: buf[0..<n])
        }
        let split = raw.range(of: Data("\r\n\r\n".utf8))!
        let head = String(decoding: raw[..<split.lowerBound], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head, Data(raw[split.upperBound...]))
    }

    /// Hands each piece of what the server sends to `each` until it closes the connection.
    private func received(_ fd: Int32, _ each: (Data) throws -> Void) throws {
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { return }
            try each(Data(buf[0..<n]))
        }
    }

    private func connect() throws -> Int32 {
        let parts = address.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw Failure(description: "--admin wants HOST:PORT, not \(address)") }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var res: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(String(parts[0]), String(port), &hints, &res) == 0, let ai = res else {
            throw Failure(description: "cannot resolve \(parts[0])")
        }
        defer { freeaddrinfo(res) }
        let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
        guard fd >= 0, Glibc.connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 else {
            if fd >= 0 { close(fd) }
            throw Failure(description: "nothing answers there")
        }
        return fd
    }

    private func send(_ fd: Int32, _ method: String, _ path: String, _ json: Data?, extra: String = "") throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n" + extra
        if let token, !token.isEmpty { head += "Authorization: Bearer \(token)\r\n" }
        if let json { head += "Content-Type: application/json\r\nContent-Length: \(json.count)\r\n" }
        let bytes = Data((head + "\r\n").utf8) + (json ?? Data())
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        guard sent == bytes.count else { throw Failure(description: "cannot send to \(address)") }
    }

    static func unchunk(_ data: Data) -> Data {
        var out = Data()
        var rest = data[...]
        while let nl = rest.range(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: rest[..<nl.lowerBound], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) ?? 0
            if size == 0 { break }
            let start = nl.upperBound
            guard let end = rest.index(start, offsetBy: size, limitedBy: rest.endIndex) else { break }
            out.append(rest[start..<end])
            rest = rest[min(rest.endIndex, end + 2)...]
        }
        return out
    }
}
