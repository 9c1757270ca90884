import EddyCache
import Foundation
import Testing

@Suite struct JobDatabaseTests {
    @Test func savesUpdatesRemovesAndReopens() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("downloads.db").path
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
}
