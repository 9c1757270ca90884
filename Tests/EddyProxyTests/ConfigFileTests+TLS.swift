import EddyProxy
import EddyTLS
import XCTest

/// The TLS listener keys: addresses, the default pair, the SNI list, and what goes together.
extension ConfigFileTests {
    func test_apply_tlsListen_takesOneAddressOrAList() throws {
        XCTAssertEqual(ProxyConfig().tlsListens, [], "no TLS listener unless asked for")
        XCTAssertEqual(try apply("tls_listen: ':8443'\ntls_cert: c.pem\ntls_key: k.pem").tlsListens,
                       [ListenAddress(host: "127.0.0.1", port: 8443)])
        let c = try apply("tls_listen: ['0.0.0.0:443', '[::1]:8443']\ntls_cert: c.pem\ntls_key: k.pem")
        XCTAssertEqual(c.tlsListens, [ListenAddress(host: "0.0.0.0", port: 443), ListenAddress(host: "::1", port: 8443)])
        XCTAssertEqual(c.tlsListens[1].description, "[::1]:8443")
        XCTAssertThrowsError(try apply("tls_listen: nowhere\ntls_cert: c.pem\ntls_key: k.pem"))
    }

    func test_apply_tlsCertificates_defaultPairFirst_thenTheSNIList() throws {
        let c = try apply("""
            tls_listen: ":8443"
            tls_cert: /etc/eddy/box.pem
            tls_key: /etc/eddy/box.key
            tls_certificates:
              - {cert: /etc/eddy/a.pem, key: /etc/eddy/a.key}
              - {cert: /etc/eddy/b.pem, key: /etc/eddy/b.key}
            """)
        XCTAssertEqual(c.tlsCertificates, [TLSCertificateFiles(cert: "/etc/eddy/box.pem", key: "/etc/eddy/box.key"),
                                           TLSCertificateFiles(cert: "/etc/eddy/a.pem", key: "/etc/eddy/a.key"),
                                           TLSCertificateFiles(cert: "/etc/eddy/b.pem", key: "/etc/eddy/b.key")])
        // The list alone is enough: its first is the default.
        XCTAssertEqual(try apply("tls_listen: ':8443'\ntls_certificates: [{cert: a.pem, key: a.key}]").tlsCertificates.count, 1)
    }

    func test_apply_tls_refusesWhatDoesNotGoTogether() {
        for bad in ["tls_listen: ':8443'", "tls_cert: c.pem", "tls_key: k.pem", "tls_listen: ':8443'\ntls_certificates: []",
                    "tls_certificates: [{cert: a.pem}]", "tls_certificates: [{cert: a.pem, key: a.key, extra: 1}]",
                    "tls_certificates: a.pem"] {
            XCTAssertThrowsError(try apply(bad), bad)
        }
    }
}
