import ArgumentParser
import Features
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

    /// `--json`, `--quiet` and `--verbose`, as the commands that never open the library take them.
    @OptionGroup package var output: OutputOptions

    package var json: Bool { output.json }
    package var quiet: Bool { output.quiet }
    package var verbose: Bool { output.verbose }

    @Flag(help: "Print how long each phase took (open, load, compute, save, render) to stderr.")
    package var timings = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long a write waits while another vibes-analyze writes to the library (default: as long as it takes).",
            valueName: "seconds"
        )
    )
    package var wait: Double?

    @Flag(name: .long, help: "Fail at once instead of waiting when another program is writing to the library.")
    package var noWait = false

    package func validate() throws {
        // --quiet with --verbose is refused by the output options.
        if let wait, !(wait >= 0 && wait <= 31_536_000) {
            throw ValidationError("Please give --wait a number of seconds from 0 to 31536000 (got \(wait)).")
        }
        if noWait && wait != nil {
            throw ValidationError("Please choose either --wait or --no-wait, not both.")
        }
    }

    /// The database path these options select.
    package var databasePath: String {
        db ?? LibraryStore.defaultPath()
    }

    /// Opens the store, bootstrapping logging first.
    ///
    /// - Parameters:
    ///   - activity: What this command does (`import`), named to other programs that wait for the
    ///     store while it writes.
    ///   - createsMissingStore: Whether a missing store is made: only for the commands that fill
    ///     one (`import`, `sync`, `analyze`). Reading commands never create files or folders.
    package func openStore(
        activity: String = "vibes-analyze",
        createsMissingStore: Bool = false
    ) throws
        -> LibraryStore
    {
        Console.bootstrapLogging(verbose: verbose)
        let quiet = quiet
        let options = LibraryStore.Options(
            writeWait: noWait ? .zero : wait.map { .milliseconds(Int64(($0 * 1000).rounded())) },
            onWait: { wait in
                guard !quiet else { return }
                let holder =
                    wait.holder.map { "another vibes-analyze (\($0.activity), pid \($0.processID))" }
                    ?? "another program"
                Console.diagnostic(
                    "Waiting for \(holder) to finish writing to the library (\(Int(wait.seconds)) s so far; "
                        + "Ctrl-C stops, --wait SECONDS limits) …"
                )
            },
            activity: activity,
            createsMissingStore: createsMissingStore,
            onUpgrade: { [databasePath] migrations in
                guard !quiet else { return }
                Console.diagnostic(
                    "Upgrading the library at \(databasePath) to this version's format (\(migrations.joined(separator: ", "))); "
                        + "this happens once and takes a while on a large library …"
                )
            }
        )
        return try LibraryStore(path: databasePath, logger: Logger(label: "vibes.store"), options: options)
    }
}

/// A runtime failure of a command, said in one line (exit 1, no usage).
package struct CommandFailure: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}

extension CommandFailure {
    /// Fails unless the folder `path` would be written in exists: `--out` never creates folders,
    /// so a mistyped path is said at once, before any work.
    ///
    /// A folder, a link to one or a disk is refused as a command-line mistake (exit 64): see
    /// ``OutputFile``.
    package static func checkOutputFolder(of path: String) throws {
        _ = try OutputFile.destination(of: path)
    }
}

/// Writing to the terminal: results to stdout, diagnostics and progress to stderr.
package enum Console {
    private static let isBootstrapped = Mutex(false)
    /// Whether a JSON document went to stdout: under `--json` a process prints exactly one.
    private static let printedDocument = Mutex(false)
    /// The last "Error: …" line written to stderr, for the JSON error object of a command that
    /// printed its own message and then threw `ExitCode.failure`.
    private static let lastError = Mutex<String?>(nil)

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

    /// What to do about a damaged store.
    static let damagedAdvice = "Restore it from a backup, or move it aside and import your files again."

    /// The one-line message of a failure, with advice for the store's errors and never showing
    /// Foundation's raw `Error Domain=…` text.
    package static func message(for error: any Error) -> String {
        let text: String
        switch error {
        case let error as StoreError:
            switch error {
            case .busy: text = error.description + " Try again when it has finished, or give --wait SECONDS."
            case .cannotOpen: text = error.description + " Check the path (--db or $VIBES_DB) and its permissions."
            case .newerSchema: text = error.description + " Use the newer version of vibes-analyze."
            case .diskFull: text = error.description + ". Free some space, then run the command again."
            case .damaged: text = error.description + " " + damagedAdvice
            case .missingStore:
                text =
                    error.description
                    + " Check --db or $VIBES_DB; `vibes-analyze import FILE`, `sync` or `analyze` makes a library."
            case .sqlite(_, let code, _, _) where code & 0xFF == 11 || code & 0xFF == 26:
                text = error.description + ". The file is damaged. " + damagedAdvice
            default: text = error.description
            }
        case let error as CocoaError:
            text = SystemErrorText.sentence(for: error)
        case let error as URLError:
            text = SystemErrorText.sentence(for: error)
        case let error as POSIXError:
            text = SystemErrorText.cause(of: error.code.rawValue)
        case let error where type(of: error) is NSError.Type:
            text = SystemErrorText.sentence(for: error as NSError)
        case let error as CustomStringConvertible:
            text = error.description
        default:
            text = "\(error)"
        }
        var line = TerminalText.singleLine(text)
        if line.count > 2_000 { line = String(line.prefix(1_999)) + "…" }
        return line
    }

    /// Writes a line of diagnostics to stderr, terminal-safe (``TerminalText/safe(_:keepingStyles:)``).
    package static func diagnostic(_ text: String) {
        for prefix in ["Error: ", "error: "] where text.hasPrefix(prefix) {
            lastError.withLock { $0 = TerminalText.singleLine(String(text.dropFirst(prefix.count))) }
        }
        FileHandle.standardError.write(Data((TerminalText.safe(text) + "\n").utf8))
    }

    /// Writes results to stdout, terminal-safe: every `print` of the command-line tools comes here.
    /// `keepingStyles` keeps the colour sequences of a styled report, whose names were made
    /// single-line and safe before styling.
    package static func write(_ text: String, terminator: String = "\n", keepingStyles: Bool = false) {
        Swift.print(TerminalText.safe(text, keepingStyles: keepingStyles), terminator: terminator)
    }

    /// Writes a value to stdout as JSON in the house style (``JSONStyle``).
    package static func printJSON(_ value: some Encodable) throws {
        let text = try JSONStyle.text(of: value)
        printedDocument.withLock { $0 = true }
        print(text)
    }

    /// Ends the process for `error`, which ended `command`: argument-parser's own exit and
    /// message for its errors (help, usage, exit codes), else "Error: …" on stderr and status 1.
    ///
    /// Under `--json` (`wantsJSON`) a failure also prints one `{"error": …}` document on stdout,
    /// unless the command printed its document already, so that stdout holds exactly one.
    package static func exit<Command: ParsableCommand>(
        for error: any Error,
        of command: Command.Type,
        wantsJSON: Bool
    ) -> Never {
        if String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            let code = command.exitCode(for: error)
            if wantsJSON, code != .success, !printedDocument.withLock({ $0 }) {
                var message = command.message(for: error)
                if message.isEmpty { message = lastError.withLock { $0 } ?? "" }
                if message.isEmpty { message = code == .failure ? "failed" : "interrupted" }
                write(JSONStyle.errorText(code: code.rawValue, message: message))
            }
            command.exit(withError: error)
        }
        let text = message(for: error)
        diagnostic("Error: " + text)
        if wantsJSON, !printedDocument.withLock({ $0 }) { write(JSONStyle.errorText(code: 1, message: text)) }
        Foundation.exit(1)
    }

    /// Whether `arguments` ask for JSON: `--json` before any `--`.
    package static func wantsJSON(_ arguments: some Collection<String>) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    /// Whether stderr is a terminal (progress is drawn only then).
    package static var stderrIsTerminal: Bool { isatty(2) != 0 }
}
