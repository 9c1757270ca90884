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

    /// `eddy serve ...` (how the service, `scripts/run` and the benchmarks start it) is read by
    /// `ServeFastPath` when it can be, else by ArgumentParser with `Serve` alone: building the
    /// whole command tree first (every subcommand's options, found by reflection and
    /// protocol-conformance lookups) took most of eddy's start-up to its first answer (issue 33,
    /// measured with perf). Anything `Serve` alone can not parse (help, an error) goes through the
    /// whole tree, so its messages are the usual ones.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.first == "serve" else { return main(nil) }
        let rest = Array(arguments.dropFirst())
        let options: ServeOptions
        if let fast = ServeFastPath.parse(rest), (try? fast.validate()) != nil {
            options = fast
        } else if let serve = try? Serve.parse(rest) {
            options = serve.options
        } else {
            return main(nil)
        }
        do { try options.run() } catch { exit(withError: error) }
    }
}
