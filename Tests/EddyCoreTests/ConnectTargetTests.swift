import EddyCore
import Testing

@Suite struct ConnectTargetTests {
    @Test(arguments: [
        ("example.com:443", "example.com", 443),
        ("Example.COM:8443", "example.com", 8443),
        ("127.0.0.1:443", "127.0.0.1", 443),
        ("[::1]:443", "::1", 443),
    ])
    func parsesAuthorityForm(_ text: String, _ host: String, _ port: Int) {
        #expect(ConnectTarget.parse(text) == ConnectTarget(host: host, port: port))
    }

    @Test(arguments: [
        "", "example.com", "example.com:", ":443", "example.com:0", "example.com:65536", "example.com:+443",
        "example.com:443/", "http://example.com:443", "user@example.com:443", "example.com:443?x",
        "[::1]", "[example.com]:443", "exa mple.com:443", "example.com:44 3", "[::1]:443#f",
    ])
    func refusesEverythingElse(_ text: String) {
        #expect(ConnectTarget.parse(text) == nil)
    }

    @Test func authorityRestoresBrackets() {
        #expect(ConnectTarget(host: "::1", port: 443).authority == "[::1]:443")
        #expect(ConnectTarget(host: "a.example", port: 443).url.description == "http://a.example:443/")
    }
}
