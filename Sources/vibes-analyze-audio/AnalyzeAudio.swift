import ArgumentParser
import AudioAnalysis
import Dispatch
import Features
import Foundation
import Ingest
import Synchronization
import VibesCommandSupport
import VibesEngine

/// `vibes-analyze-audio`: what `vibes-analyze analyze` runs. It is a program of its own so that
/// only it links FFmpeg and aubio (about 170 shared libraries, 0.1 s to load): every other command
/// starts without them.
@main
struct AnalyzeAudio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vibes-analyze analyze",
        abstract: AnalyzeOptions.abstract,
        discussion: AnalyzeOptions.discussion
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: AnalyzeOptions

    /// Runs the command; a failure while running exits 1 with the one-line message every command
    /// of vibes-analyze prints (``Console/message(for:)``), never a raw SQLite error.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // Help, validation and exit codes: argument-parser's own handling; under --json, one
            // JSON document on stdout whatever failed.
            Console.exit(for: error, of: self, wantsJSON: Console.wantsJSON(CommandLine.arguments.dropFirst()))
        }
    }

    func run() async throws {
        var timer = PhaseTimer(isEnabled: global.timings)
        defer { timer.report() }
        let store = try global.openStore(activity: "analyze", createsMissingStore: true)
        timer.lap("open")
        let paths = Self.pathsAsGiven(options.paths)
        let listing = AudioFiles.find(in: paths)
        for path in listing.missing { Console.diagnostic("error: \(path): no such file or folder") }
        if listing.files.isEmpty {
            Console.diagnostic(
                "error: no audio files found in \(paths.map(\.description).joined(separator: ", ")) (looked for \(AudioFiles.extensions.sorted().joined(separator: ", ")))."
            )
            throw ExitCode.failure
        }
        timer.lap("find files")
        // One copy of the tagger's weights (3 MB), shared by every job.
        let analyzer = AudioAnalyzer(tagger: try MusicTagger())
        timer.lap("load tagger")
        let jobs = min(options.jobs, listing.files.count)
        let run = AnalysisRun(
            analyzer: analyzer,
            store: store,
            files: listing.files,
            force: options.force,
            quiet: global.quiet || global.json
        )
        let started = ContinuousClock.now
        let results = await run.perform(jobs: jobs) { result in
            if !global.json { print(Self.line(for: result)) }
        }
        let seconds = ProgressBar.seconds(ContinuousClock.now - started)
        timer.lap("analyse")
        if global.timings, let tagger = analyzer.tagger {
            Console.diagnostic(
                String(format: "tagger: %.2f s of processor time over all jobs", tagger.processorSeconds)
            )
        }
        let busy = results.lazy.compactMap(\.busy).first
        // A busy store would keep the calibration waiting too; the next run calibrates.
        let calibration = busy == nil ? try store.calibrateLocalFeatures() : nil
        timer.lap("calibrate")

        if global.json {
            try Console.printJSON(["files": try results.map { try AnalyzedFileJSON(result: $0, store: store) }])
        } else {
            for line in Self.summary(results, seconds: seconds, jobs: jobs) { print(line) }
            for line in calibration?.describedLines ?? [] { print(line) }
        }
        timer.lap("render")
        if busy == nil {
            // As `import` and `sync` leave them: the next command reads the library's features,
            // and the similarity blocks the analysed files' tags changed, in one go.
            store.prepareAllSnapshots()
            timer.lap("snapshots")
        }
        if let busy { Console.diagnostic("Error: " + Console.message(for: busy)) }
        if !listing.missing.isEmpty || busy != nil || results.contains(where: { $0.failure != nil }) {
            throw ExitCode.failure
        }
    }

    /// `paths` as the bytes they were given in.
    ///
    /// argument-parser reads `CommandLine.arguments`, where each byte of a name that is not valid
    /// UTF-8 became U+FFFD, naming no file. Each path is matched, in order, to the raw argument
    /// (`CommandLine.unsafeArgv`) that reads as it, whose bytes name the file.
    static func pathsAsGiven(_ paths: [String]) -> [AudioFilePath] {
        let raw: [[UInt8]] = (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return UnsafeBufferPointer(start: argument, count: strlen(argument)).map { UInt8(bitPattern: $0) }
        }
        var next = 0
        return paths.map { path in
            guard let index = raw[next...].firstIndex(where: { String(decoding: $0, as: UTF8.self) == path }) else {
                return AudioFilePath(path)
            }
            next = index + 1
            return AudioFilePath(bytes: raw[index])
        }
    }

    static func line(for result: FileResult) -> String {
        let path = TerminalText.singleLine(result.path)
        if let failure = result.failure { return "✗ \(path): \(TerminalText.singleLine(failure))" }
        switch result.status {
        case .storeBusy: return "… \(path): not stored, the library store is busy"
        case .unchanged: return "= \(path): unchanged"
        case .sameContent: return "= \(path): same content as a file analysed before"
        case .analyzed, .failed:
            guard let analysis = result.analysis else { return "✓ \(path)" }
            var parts: [String] = []
            let f = analysis.features
            if let tempo = f.tempo { parts.append(String(format: "%.1f BPM", tempo)) }
            if let key = f.key, key >= 0 {
                parts.append(AudioFeature.pitchClassName(of: Double(key)) + (f.mode == 1 ? " major" : " minor"))
            }
            if let loudness = f.loudness { parts.append(String(format: "%.1f LUFS", loudness)) }
            if let energy = f.energy { parts.append(String(format: "energy %.2f", energy)) }
            let match = result.outcome.map { " (\(Self.describe($0.match)))" } ?? ""
            return "✓ \(path): " + parts.joined(separator: ", ") + match
        }
    }

    static func describe(_ match: LocalFileMatch) -> String {
        switch match {
        case .isrc: "matched by ISRC"
        case .spotifyID: "matched by Spotify link"
        case .artistTitle: "matched by artist and title"
        case .newTrack: "new track"
        }
    }

    static func summary(_ results: [FileResult], seconds: Double, jobs: Int) -> [String] {
        let analyzed = results.filter { $0.status == .analyzed }
        let audioSeconds = analyzed.compactMap { $0.analysis.map { Double($0.durationMS) / 1000 } }.reduce(0, +)
        var line = "Analysed \(analyzed.count) of \(results.count) files"
        if audioSeconds > 0 {
            line +=
                String(
                    format: " (%.1f min of audio) in %.1f s, %.0f× real time on %d ",
                    audioSeconds / 60,
                    seconds,
                    audioSeconds / max(seconds, 1e-3),
                    jobs
                ) + (jobs == 1 ? "job" : "jobs")
        }
        var notes: [String] = []
        let unchanged = results.filter { $0.status == .unchanged || $0.status == .sameContent }.count
        if unchanged > 0 { notes.append("\(unchanged) unchanged (--force analyses them again)") }
        let failed = results.filter { $0.failure != nil }.count
        if failed > 0 { notes.append("\(failed) failed") }
        let waiting = results.filter { $0.status == .storeBusy }.count
        if waiting > 0 {
            notes.append("\(waiting) not stored because the library store is busy (the next run analyses them)")
        }
        let new = analyzed.filter { $0.outcome?.match == .newTrack }.count
        if new > 0 { notes.append(new == 1 ? "1 new track" : "\(new) new tracks") }
        return [line + (notes.isEmpty ? "." : "; " + notes.joined(separator: ", ") + ".")]
    }
}

// MARK: - Running

/// What happened to one file.
struct FileResult: Sendable {
    enum Status: String, Sendable {
        case analyzed
        case unchanged
        case sameContent = "same-content"
        case failed
        /// Not stored, and not a failure: another program held the store past `--wait` (or at
        /// once, with `--no-wait`). The run takes no more files; the next one analyses it.
        case storeBusy = "store-busy"
    }

    var index: Int
    /// The path as shown and stored: escaped where it is not UTF-8 (``AudioFilePath/description``).
    var path: String
    var status: Status
    var analysis: AudioFileAnalysis?
    var outcome: LocalFileOutcome?
    var failure: String?
    /// Why the file was not stored, when the store was busy.
    var busy: StoreError?
}

/// Analyses files on `jobs` threads, writing each to the store as it finishes.
///
/// One file's failure never stops the others. A store that stays busy past the wait stops the
/// run: every later write would wait as long and fail the same way.
struct AnalysisRun: Sendable {
    let analyzer: AudioAnalyzer
    let store: LibraryStore
    let files: [AudioFilePath]
    let force: Bool
    let quiet: Bool

    /// Analyses every file; `report` is called for each as it finishes, in finishing order, on one
    /// thread at a time. Returns the results in the order of `files`.
    func perform(jobs: Int, report: @escaping @Sendable (FileResult) -> Void) async -> [FileResult] {
        let state = Mutex(
            (
                next: 0, done: 0, results: [FileResult?](repeating: nil, count: files.count), audio: 0.0,
                busy: StoreError?.none
            )
        )
        let progress = ProgressBar(label: "Analysing", quiet: quiet)
        let total = files.count
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: jobs) { _ in
                    while true {
                        let index = state.withLock { state -> Int? in
                            guard state.next < total, state.busy == nil else { return nil }
                            defer { state.next += 1 }
                            return state.next
                        }
                        guard let index else { return }
                        let result = process(index: index)
                        state.withLock { state in
                            if state.busy == nil, let busy = result.busy { state.busy = busy }
                            state.results[index] = result
                            state.done += 1
                            state.audio += result.analysis.map { Double($0.durationMS) / 1000 } ?? 0
                            progress.finish()  // clears the bar, so the result line takes its place
                            report(result)
                            progress.update(done: state.done, total: total, audioSeconds: state.audio)
                        }
                    }
                }
                progress.finish()
                continuation.resume()
            }
        }
        return state.withLock { state in
            state.results.enumerated().map { index, result in
                result
                    ?? FileResult(
                        index: index,
                        path: files[index].description,
                        status: .storeBusy,
                        busy: state.busy
                    )
            }
        }
    }

    private func process(index: Int) -> FileResult {
        let path = files[index]
        var result = FileResult(index: index, path: path.description, status: .failed)
        do {
            // Opened once, after refusing FIFOs and devices; fingerprint, hash and analysis all
            // read this descriptor.
            let file = try AudioFile(opening: path)
            let fingerprint = LocalFileFingerprint(
                path: path.description,
                size: file.size,
                modifiedNS: file.modifiedNS
            )
            if !force, case .unchanged = try store.localFileState(of: fingerprint, analyzer: AudioAnalyzer.version) {
                result.status = .unchanged
                return result
            }
            let hash = try file.withDescriptor { try LocalFileFingerprint.contentHash(readingFrom: $0) }
            if !force,
                let outcome = try store.recordLocalCopy(
                    of: fingerprint,
                    contentHash: hash,
                    analyzer: AudioAnalyzer.version
                )
            {
                result.status = .sameContent
                result.outcome = outcome
                return result
            }
            do {
                let analysis = try analyzer.analyze(file)
                result.outcome = try store.recordLocalAnalysis(analysis, of: fingerprint, contentHash: hash)
                result.analysis = analysis
                result.status = .analyzed
            } catch let error as AudioAnalysisError {
                result.failure = error.reason
                try store.recordLocalFailure(of: fingerprint, analyzer: AudioAnalyzer.version, reason: error.reason)
            }
        } catch let error as AudioAnalysisError {
            // Not opened (missing, unreadable, a FIFO or device): nothing to record.
            result.failure = error.reason
        } catch let error as StoreError {
            if case .busy = error {
                result = FileResult(index: index, path: path.description, status: .storeBusy, busy: error)
            } else {
                result.failure = Console.message(for: error)
            }
        } catch {
            result.failure = Console.message(for: error)
        }
        return result
    }
}

extension ProgressBar {
    /// Redraws the line with files done and hours of audio analysed.
    func update(done: Int, total: Int, audioSeconds: Double) {
        guard isEnabled else { return }
        let elapsed = Self.seconds(ContinuousClock.now - started)
        let rate = elapsed > 0 ? audioSeconds / elapsed : 0
        let eta = done > 0 ? elapsed / Double(done) * Double(total - done) : 0
        let line = String(
            format: "%@ %d/%d files, %.2f h of audio, %.0f× real time, ETA %@",
            label,
            done,
            total,
            audioSeconds / 3600,
            rate,
            Self.format(eta)
        )
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }
}

// MARK: - JSON

/// One file in `analyze --json`: Spotify's feature names at the top level.
struct AnalyzedFileJSON: Encodable {
    var path: String
    var status: String
    var trackID: String?
    var matchedBy: String?
    var durationMS: Int?
    var features: AudioFeatures
    var confidence: [String: Double]
    var provenance: Provenance?
    var details: AudioFileAnalysis.Details?
    var error: String?

    struct Provenance: Encodable {
        var analyzer: String
        var measured: [String]
        var estimated: [String]
    }

    init(result: FileResult, store: LibraryStore) throws {
        path = result.path
        status = result.status.rawValue
        error = result.failure
        features = AudioFeatures()
        confidence = [:]
        guard result.failure == nil, result.status != .storeBusy,
            let stored = try store.storedLocalFile(path: result.path)
        else { return }
        trackID = stored.stableID
        matchedBy = stored.match?.rawValue
        durationMS = stored.durationMS
        features = stored.features
        confidence = stored.confidence.mapValues { ($0 * 1000).rounded() / 1000 }
        provenance = Provenance(
            analyzer: stored.analyzer,
            measured: stored.provenance.filter { $0.value == "measured" }.keys.sorted(),
            estimated: stored.provenance.filter { $0.value == "estimated" }.keys.sorted()
        )
        details = stored.detailsJSON.flatMap {
            try? JSONDecoder().decode(AudioFileAnalysis.Details.self, from: Data($0.utf8))
        }
    }

    enum CodingKeys: String, CodingKey {
        case path, status, confidence, provenance, error, details
        case trackID = "track_id"
        case matchedBy = "matched_by"
        case durationMS = "duration_ms"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(status, forKey: .status)
        try container.encode(trackID, forKey: .trackID)
        try container.encode(matchedBy, forKey: .matchedBy)
        try container.encode(durationMS, forKey: .durationMS)
        try container.encode(confidence, forKey: .confidence)
        try container.encode(provenance, forKey: .provenance)
        try container.encode(error, forKey: .error)
        try container.encodeIfPresent(details, forKey: .details)
        var fields = encoder.container(keyedBy: FeatureKey.self)
        for feature in AudioFeature.allCases where feature != .liveness {
            let value = features[feature]
            switch feature {
            case .key, .mode, .timeSignature: try fields.encode(value.map { Int($0) }, forKey: FeatureKey(feature))
            case .tempo, .loudness:
                try fields.encode(value.map { ($0 * 1000).rounded() / 1000 }, forKey: FeatureKey(feature))
            default: try fields.encode(value.map { ($0 * 10000).rounded() / 10000 }, forKey: FeatureKey(feature))
            }
        }
    }

    struct FeatureKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ feature: AudioFeature) { stringValue = feature.rawValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
