import ArgumentParser

/// The `eddy` command: an edge-streaming proxy with a progressive, persistent range cache.
@main
struct Eddy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eddy",
        abstract: "An edge-streaming proxy with a progressive, persistent byte-range cache.",
        discussion: """
        Point a media player at eddy instead of the origin. eddy answers byte-range requests from the \
        bytes it has on disk, fetches only the missing ranges upstream, streams them as they arrive, \
        and keeps what completes across restarts.
        """,
        version: "0.1.0",
        subcommands: [Serve.self, CacheCommand.self, DownloadCommand.self, VariantsCommand.self, StatusCommand.self],
        defaultSubcommand: Serve.self
    )
}
