// wirebench: the HTTP layer alone, for bench/wire.py. Serves every request a stored-hit-like
// 200 of SIZE bytes from memory through eddy's connection layer (`HTTPServer`, as eddy's snapshot
// hits use it), so that it can be measured side by side with nginx without the cache in the way.
// (Up to commit 44d6764 it also served through evhttp: bench/RESULTS.md has that comparison.)
//
//   wirebench wire PORT SIZE
import EddyCore
import EddyLoop
import Glibc

let args = CommandLine.arguments
guard args.count == 4, let port = Int(args[2]), let size = Int(args[3]), size > 0, args[1] == "wire" else {
    fputs("usage: wirebench wire PORT SIZE\n", stderr)
    exit(64)
}
let loop = EventLoop()
let body = SharedBytes(count: size) { buffer in
    for i in 0..<buffer.count { buffer[i] = UInt8(truncatingIfNeeded: i &* 31) }
    return true
}!
// The fields a stored hit replays, as eddy would send them.
let stored = HTTPHeaders([("Server", "nginx"), ("Content-Type", "application/octet-stream"),
                          ("Last-Modified", "Thu, 26 Nov 2026 10:00:00 GMT"), ("ETag", "\"6745a1b0-4000\""),
                          ("Expires", "Sat, 28 Nov 2026 10:00:00 GMT"), ("Cache-Control", "max-age=86400"),
                          ("Accept-Ranges", "bytes")])
let block = HeaderBlock(stored)
let server = try HTTPServer(loop: loop, host: "127.0.0.1", port: port, limits: HTTPServerLimits())
server.handler = { request in
    var extra = HTTPHeaders(capacity: 4)
    extra.add("Age", "5")
    extra.add("Content-Length", String(size))
    extra.add("Cache-Status", "eddy; hit; ttl=86395")
    request.sendShared(status: 200, headers: block, extra: extra, bytes: body, offset: 0, length: size)
}
print("listening", server.boundPort)
fflush(stdout)
loop.run()
