import ArgumentParser

/// How a command prints: what every command takes.
package protocol OutputSettings {
    /// Print results as JSON.
    var json: Bool { get }
    /// Print only results and errors.
    var quiet: Bool { get }
    /// Print diagnostics while working.
    var verbose: Bool { get }
}

/// `--json`, `--quiet` and `--verbose`, for commands that never open the library (the Spotify
/// account and player commands), so their help offers no `--db`, `--wait` or `--timings`.
package struct OutputOptions: ParsableArguments, OutputSettings {
    package init() {}

    @Flag(name: .long, help: "Print results as JSON for scripts.")
    package var json = false

    @Flag(name: .shortAndLong, help: "Print only results and errors, no progress.")
    package var quiet = false

    @Flag(name: .shortAndLong, help: "Print diagnostics while working.")
    package var verbose = false

    package func validate() throws {
        if quiet && verbose {
            throw ValidationError("Please choose either --quiet or --verbose, not both.")
        }
    }
}

extension GlobalOptions: OutputSettings {}
