import ArgumentParser

extension Eddy {
    /// `eddy cache`: maintenance of a cache directory.
    struct CacheCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cache",
            abstract: "Maintain a cache directory.",
            subcommands: [Verify.self]
        )
    }
}
