import ArgumentParser
import Foundation
import VibesCommandSupport

extension VibesAnalyze {
    /// `vibes-analyze analyze`: hands the command line to `vibes-analyze-audio`, installed beside
    /// this program, which links the audio libraries this one does not.
    struct Analyze: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "analyze",
            abstract: AnalyzeOptions.abstract,
            discussion: AnalyzeOptions.discussion
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: AnalyzeOptions

        func run() throws {
            guard let analyzer = Self.companionPath() else {
                Console.diagnostic(
                    "Error: vibes-analyze-audio, the program that analyses audio files, is not beside vibes-analyze"
                        + " (\(Self.executableDirectory ?? "?")) nor on PATH. `make build` builds both; `make install` installs both."
                )
                throw ExitCode.failure
            }
            // The raw bytes of the arguments: `CommandLine.arguments` has already replaced bytes that
            // are not UTF-8 (a file name in Latin-1, say) with U+FFFD, which names no file.
            let raw = (0..<Int(CommandLine.argc)).compactMap { CommandLine.unsafeArgv[$0] }
            let start = raw.firstIndex { strcmp($0, "analyze") == 0 }.map { $0 + 1 } ?? raw.count
            let argv = [strdup(analyzer)] + raw[start...].map { strdup($0) } + [nil]
            execv(analyzer, argv)
            Console.diagnostic("Error: could not start \(analyzer): \(String(cString: strerror(errno)))")
            throw ExitCode.failure
        }

        /// The folder of the running executable, symbolic links resolved.
        static var executableDirectory: String? {
            let path =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? Bundle.main.executablePath
            return path.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent().path }
        }

        /// `$VIBES_AUDIO_ANALYZER`, else `vibes-analyze-audio` beside this executable, else on `PATH`.
        static func companionPath() -> String? {
            let manager = FileManager.default
            if let path = ProcessInfo.processInfo.environment["VIBES_AUDIO_ANALYZER"],
                manager.isExecutableFile(atPath: path)
            {
                return path
            }
            var candidates: [String] = []
            if let folder = executableDirectory { candidates.append(folder + "/vibes-analyze-audio") }
            for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
                candidates.append(folder + "/vibes-analyze-audio")
            }
            return candidates.first { manager.isExecutableFile(atPath: $0) }
        }
    }
}
