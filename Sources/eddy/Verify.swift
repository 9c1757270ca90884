import ArgumentParser
import EddyCache
import Foundation

extension Eddy.CacheCommand {
    /// `eddy cache verify`: check every cached byte against its checksum and drop what is damaged.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every cached block against its checksum; drop damaged blocks so they are fetched again.",
            discussion: """
            Run it while eddy is stopped (it takes the cache directory's lock). Exit status: 0 when the \
            cache is clean, 1 when damage was found and dropped, 2 when the cache could not be checked.
            """
        )

        @Option(name: .long, help: "Cache directory. (default: ./cache)")
        var cacheDir = "./cache"

        func run() throws {
            let report: CacheVerifier.Report
            do {
                report = try CacheVerifier.run(directory: cacheDir) { key, what in print("damaged: \(key): \(what)") }
            } catch {
                FileHandle.standardError.write(Data("eddy cache verify: \(error)\n".utf8))
                throw ExitCode(2)
            }
            print("""
                verified \(report.resources) resources: \(report.blocksChecked) blocks checked, \
                \(report.damagedBlocks) damaged blocks, \(report.missingFiles) missing files, \
                \(report.truncatedFiles) truncated files, \(report.droppedBytes) bytes dropped, \
                \(report.blocksWithoutChecksum) blocks without a checksum
                """)
            if !report.isClean { throw ExitCode(1) }
        }
    }
}
