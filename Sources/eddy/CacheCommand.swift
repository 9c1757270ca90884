import ArgumentParser

extension Eddy {
    /// `eddy cache`: maintenance of a cache directory.
    struct CacheCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cache",
            abstract: "Look into and maintain the cache.",
            discussion: """
            stats, ls, show, purge, pin and unpin talk to a running eddy's admin API; verify works on a \
            stopped eddy's cache directory. Exit status: 0 on success, 1 when eddy answered with an \
            error (printed on stderr, e.g. a resource that is not cached), 2 when the admin listener \
            could not be reached, 64 for a usage error.
            """,
            subcommands: [CacheStats.self, CacheList.self, CacheShow.self, CachePurge.self, CachePin.self, CacheUnpin.self,
                          Verify.self]
        )
    }
}
