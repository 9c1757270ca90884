import EddyCore
import EddyDownloads
import EddyProxy
import Foundation
import XCTest

final class ConfigFileAccessLogTests: XCTestCase {
    func test_apply_unquotedOff_disablesAccessLog() throws {
        let c = try ConfigFile.apply(yaml: "access_log: off\n", to: ProxyConfig())
        XCTAssertEqual(c.accessLog, "off")
    }
}
