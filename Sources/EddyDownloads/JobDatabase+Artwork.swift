extension JobDatabase {
    /// Keeps a job's artwork (`Artwork`), replacing any.
    public func saveArtwork(job: String, _ art: Artwork) throws {
        let q = try connection.prepare("INSERT OR REPLACE INTO artwork (job, type, data) VALUES (?, ?, ?)")
        q.bind(1, job)
        q.bind(2, art.type)
        q.bind(3, blob: art.bytes)
        _ = try q.step()
    }

    /// A job's artwork, nil when it has none.
    public func artwork(job: String) throws -> Artwork? {
        let q = try connection.prepare("SELECT type, data FROM artwork WHERE job = ?")
        q.bind(1, job)
        guard try q.step(), let type = q.string(0) else { return nil }
        return Artwork(type: type, bytes: q.blob(1))
    }
}
