@testable import EddyDownloads
import Foundation
import Testing

@Suite struct JobDatabaseTests {
    /// A fresh directory and the database path in it; the caller removes the directory.
    static func scratch() throws -> (URL, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("downloads.db").path)
    }

    @Test func savesUpdatesRemovesAndReopens() throws {
        let (dir, path) = try JobDatabaseTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let db = try JobDatabase(path: path)
            try db.save(id: "b", created: 2, record: "{\"n\":1}")
            try db.save(id: "a", created: 1, record: "{}")
            try db.save(id: "b", created: 9, record: "{\"n\":2}") // an update keeps the creation time
            try db.save(id: "c", created: 3, record: "{}")
            try db.remove(id: "c")
        }
        let rows = try JobDatabase(path: path).all()
        #expect(rows.map(\.id) == ["a", "b"])
        #expect(rows.map(\.record) == ["{}", "{\"n\":2}"])
    }

    @Test func removedIdsAreKeptAcrossReopeningAndPruned() throws {
        let (dir, path) = try JobDatabaseTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let db = try JobDatabase(path: path)
            for (i, id) in ["a", "b", "c", "d"].enumerated() { try db.remember(removed: id, at: 100 + i, keep: 3) }
        }
        #expect(try JobDatabase(path: path).removed() == ["b", "c", "d"])
    }

    @Test func recordedSegmentsAppendReadBackInOrderAndGoWithTheirJob() throws {
        let (dir, path) = try JobDatabaseTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let db = try JobDatabase(path: path)
            try db.save(id: "j", created: 1, record: "{}")
            try db.record(job: "j", rendition: "http://o/v.m3u8", [(5, "s5"), (3, "s3")])
            try db.record(job: "j", rendition: "http://o/v.m3u8", [(4, "s4"), (5, "s5 again")]) // a re-add replaces
            try db.record(job: "j", rendition: "http://o/a.m3u8", [(0, "a0")])
            try db.record(job: "k", rendition: "http://o/v.m3u8", [(1, "k1")])
        }
        let db = try JobDatabase(path: path)
        #expect(try db.recorded(job: "j") == ["http://o/v.m3u8": ["s3", "s4", "s5 again"], "http://o/a.m3u8": ["a0"]])
        try db.remove(id: "j")
        #expect(try db.recorded(job: "j").isEmpty)
        #expect(try db.recorded(job: "k") == ["http://o/v.m3u8": ["k1"]])
    }
}
