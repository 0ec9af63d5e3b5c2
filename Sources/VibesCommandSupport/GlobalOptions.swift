import ArgumentParser
import Foundation
import Ingest
import Logging
import Synchronization

/// Options every subcommand takes: where the store is, how much to say, and how to print.
package struct GlobalOptions: ParsableArguments {
    package init() {}

    @Option(
        name: .long,
        help:
            "The library database file. Defaults to $VIBES_DB, else $XDG_DATA_HOME/vibes-analyze/library.sqlite, else ~/.local/share/vibes-analyze/library.sqlite."
    )
    package var db: String?

    @Flag(name: .long, help: "Print results as JSON for scripts.")
    package var json = false

    @Flag(name: .shortAndLong, help: "Print only results and errors, no progress.")
    package var quiet = false

    @Flag(name: .shortAndLong, help: "Print diagnostics while working.")
    package var verbose = false

    @Flag(help: "Print how long each phase took (open, load, compute, save, render) to stderr.")
    package var timings = false

    package func validate() throws {
        if quiet && verbose {
            throw ValidationError("Please choose either --quiet or --verbose, not both.")
        }
    }

    /// The database path these options select.
    package var databasePath: String {
        db ?? LibraryStore.defaultPath()
    }

    /// Opens the store, bootstrapping logging first.
    package func openStore() throws -> LibraryStore {
        Console.bootstrapLogging(verbose: verbose)
        return try LibraryStore(path: databasePath, logger: Logger(label: "vibes.store"))
    }
}

/// Writing to the terminal: results to stdout, diagnostics and progress to stderr.
package enum Console {
    private static let isBootstrapped = Mutex(false)

    /// Sets up swift-log once per process: stderr, `info` or `debug` with `--verbose`.
    package static func bootstrapLogging(verbose: Bool) {
        let first = isBootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .warning
            return handler
        }
    }

    /// Writes a line of diagnostics to stderr.
    package static func diagnostic(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes a value as pretty-printed JSON with sorted keys to stdout.
    package static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        print(String(decoding: data, as: UTF8.self))
    }

    /// `text` with control characters removed (ESC, BEL, CR, …), so that a name from a file, a tag
    /// or Spotify cannot drive the terminal.
    package static func sanitized(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
    }

    /// Whether stderr is a terminal (progress is drawn only then).
    package static var stderrIsTerminal: Bool { isatty(2) != 0 }
}
