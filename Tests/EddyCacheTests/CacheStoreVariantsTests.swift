import EddyCache
import EddyCore
import Foundation
import Logging
import XCTest

final class CacheStoreVariantsTests: XCTestCase {
    private var directory = ""
    private let base = "https://cdn.example.com/a.mp4"

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-vary-\(UUID().uuidString)").path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func meta() -> ResourceMeta {
        ResourceMeta(length: 10, etag: nil, lastModified: nil, contentType: nil, headers: HTTPHeaders(), storedAt: 1)
    }

    private func variant(_ lang: String) -> String {
        VaryKey.key(base, fields: ["accept-language"], request: HTTPHeaders([("Accept-Language", lang)]))
    }

    func test_variants_listsOnlyThisURLsVariants_newestFirst_committedOrNot() throws {
        do {
            let store = try CacheStore(directory: directory, maxSize: 0, logger: Logger(label: "t"))
            _ = store.insert(key: base, meta: .varyMarker(fields: ["accept-language"], storedAt: 1), now: 1)
            _ = store.insert(key: variant("fr"), meta: meta(), now: 10)
            _ = store.insert(key: variant("en"), meta: meta(), now: 20)
            _ = store.insert(key: base + "x", meta: meta(), now: 30) // another URL sharing the prefix
            XCTAssertEqual(store.variants(of: base).map(\.key), [variant("en"), variant("fr")], "not committed yet")
            store.flush(wait: true)
            XCTAssertEqual(store.variants(of: base).map(\.key), [variant("en"), variant("fr")], "committed")
            if let fr = store.lookup(variant("fr"), now: 40) { store.remove(fr) }
            XCTAssertEqual(store.variants(of: base).map(\.key), [variant("en")], "a pending delete is gone")
            store.flush(wait: true)
        }
        let reopened = try CacheStore(directory: directory, maxSize: 0, logger: Logger(label: "t"))
        XCTAssertEqual(reopened.variants(of: base).map(\.key), [variant("en")], "from the index alone")
        XCTAssertEqual(reopened.lookup(base, now: 50)?.meta.varyMarkerFields, ["accept-language"])
        XCTAssertEqual(reopened.variants(of: base + "x").map(\.key), [])
    }
}
