import Foundation
import Glibc

/// A small blocking HTTP/1.1 client for eddy's admin API (loopback or LAN, plain HTTP): one
/// request per connection (`Connection: close`), the body read to the end, or line by line for
/// server-sent events. What `eddy download` and `eddy variants` talk through.
struct AdminClient {
    /// `host:port` of the admin listener.
    let address: String

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Sends a request and returns the status and body.
    func call(_ method: String, _ path: String, json: Data? = nil) throws -> (Int, Data) {
        let fd = try connect()
        defer { close(fd) }
        try send(fd, method, path, json)
        var raw = Data()
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            raw.append(contentsOf: buf[0..<n])
        }
        guard let split = raw.range(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "no answer from \(address)") }
        let head = String(decoding: raw[..<split.lowerBound], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var body = Data(raw[split.upperBound...])
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
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { return }
            pending.append(contentsOf: buf[0..<n])
            // Chunk-size lines and the head never start with "data: ", so a line scan suffices.
            while let nl = pending.firstIndex(of: 10) {
                let line = pending[pending.startIndex..<nl]
                pending = Data(pending[(nl + 1)...])
                if line.starts(with: Data("data: ".utf8)) { onData(Data(line.dropFirst(6))) }
            }
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
            throw Failure(description: "cannot reach eddy's admin listener at \(address) (is eddy running with admin: set?)")
        }
        return fd
    }

    /// Streams the body of `GET path` (with `Range` for `range`) into `file` at the range's
    /// offset, without holding it in memory; fails unless the answer is 200 or 206 with exactly
    /// the bytes asked for.
    func save(_ path: String, range: Range<Int>?, length: Int, to file: Int32) throws {
        let fd = try connect()
        defer { close(fd) }
        let extra = range.map { "Range: bytes=\($0.lowerBound)-\($0.upperBound - 1)\r\n" } ?? ""
        try send(fd, "GET", path, nil, extra: extra)
        var pending = Data()
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        var offset = range?.lowerBound ?? 0
        let want = range?.count ?? length
        var headDone = false
        var got = 0
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            var chunk = Data(buf[0..<n])
            if !headDone {
                pending.append(chunk)
                guard let split = pending.range(of: Data("\r\n\r\n".utf8)) else { continue }
                let head = String(decoding: pending[..<split.lowerBound], as: UTF8.self)
                let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                guard status == (range == nil ? 200 : 206) else {
                    throw Failure(description: "\(path): \(status) \(String(decoding: pending[split.upperBound...], as: UTF8.self).prefix(200))")
                }
                headDone = true
                chunk = Data(pending[split.upperBound...])
            }
            let written = chunk.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, off_t(offset)) }
            guard written == chunk.count else { throw Failure(description: "cannot write: \(String(cString: strerror(errno)))") }
            offset += chunk.count
            got += chunk.count
        }
        guard got == want else { throw Failure(description: "\(path): \(got) of \(want) bytes came") }
    }

    private func send(_ fd: Int32, _ method: String, _ path: String, _ json: Data?, extra: String = "") throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n" + extra
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
