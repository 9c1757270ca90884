import EddyCache
import EddyCore
import Foundation
import XCTest

/// What listeners hear: every change to the confirmed bytes, counted so that they add up to the
/// store's total.
final class CacheListenerTests: XCTestCase {
    private var fixture: CacheFixture!

    override func setUp() { fixture = CacheFixture() }
    override func tearDown() { fixture = nil }

    func test_listener_hearsConfirmDropTouchAndRemove_andTheCountsAddUp() throws {
        let store = try fixture.openStore()
        let recorder = RecordingListener()
        store.addListener(recorder)
        let a = store.insert(key: "k/a", meta: fixture.meta(), now: 100)
        store.confirm(a, 0..<600)
        store.confirm(a, 400..<1000)
        store.confirm(a, 0..<1000)
        store.touch(a, now: 100) // not moved: not heard
        store.touch(a, now: 101)
        store.dropDamaged(a, 0..<100, reason: "test")
        let b = store.insert(key: "k/b", meta: fixture.meta(length: 500), now: 100)
        store.confirm(b, 0..<500)
        store.replace(b, with: fixture.meta(length: 700))
        store.confirm(b, 0..<700)
        store.remove(a)
        _ = store.insert(key: "k/b", meta: fixture.meta(), now: 102) // supersedes b

        XCTAssertEqual(recorder.events, [
            .confirmed(key: "k/a", count: 600),
            .confirmed(key: "k/a", count: 400),
            .confirmed(key: "k/a", count: 0),
            .touched(key: "k/a"),
            .dropped(key: "k/a", count: 100),
            .confirmed(key: "k/b", count: 500),
            .dropped(key: "k/b", count: 500),
            .confirmed(key: "k/b", count: 700),
            .removed(key: "k/a", bytes: 900),
            .removed(key: "k/b", bytes: 700),
        ])
        XCTAssertEqual(store.totalBytes, 0)
        XCTAssertEqual(recorder.netBytes, store.totalBytes)
    }

    func test_removeListener_stopsEvents() throws {
        let store = try fixture.openStore()
        let recorder = RecordingListener()
        store.addListener(recorder)
        let r = store.insert(key: "k/a", meta: fixture.meta(), now: 1)
        store.confirm(r, 0..<10)
        store.removeListener(recorder)
        store.confirm(r, 10..<20)
        XCTAssertEqual(recorder.events, [.confirmed(key: "k/a", count: 10)])
        XCTAssertEqual(store.totalBytes, 20)
    }
}
