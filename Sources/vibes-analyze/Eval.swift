import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport

extension VibesAnalyze {
    /// `vibes-analyze eval`: how well neighbours and clusters agree with labels the user already has.
    struct Eval: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "eval",
            abstract:
                "Measure recommendation quality against labels: precision@k versus naive baselines and chance, and cluster agreement (NMI, ARI).",
            discussion: """
                For every track with a label (a genre tag, a subgenre, or an imported playlist), the k most \
                similar labelled tracks are found; precision@k is the share that share a label with the seed. \
                The same seeds are searched in three naive spaces (z-score cosine on the 11 audio features, \
                z-score cosine without key and mode, z-score Euclidean without key and mode), and each \
                difference "tool − baseline" comes with a paired bootstrap 95 % confidence interval over \
                the seeds. The random baseline is the exact share expected by chance. NMI and ARI compare a \
                k-means clustering of the same space, and with --run a saved clustering run, with the labels \
                (1 = the same grouping, 0 = unrelated). With --label playlist, catch-all playlists (Liked \
                Songs, or any holding more than 30 % of the tracks) are left out unless --include-catch-all \
                is given. The similarity evaluated never uses the label it is graded on.

                With --ordering, it judges playlist order instead: every imported playlist with 10 to 500 \
                tracks with features (catch-alls left out as above) is ordered by flow and by best-start \
                greedy nearest neighbour, and the mean transition cost per step of each (lower is \
                smoother) is compared, with paired bootstrap 95 % CIs over the playlists, with greedy's \
                and with the exact expected cost of a random order.

                Example: vibes-analyze eval --label genre --sample 2000
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Scope") var scope: PlaylistScopeOptions
        @OptionGroup var layout: TableOptions

        @Option(
            name: .long,
            help:
                "The label: genre, subgenre or playlist (playlist_genre and playlist_subgenre also work); by default playlist when the library has playlists, else genre, else subgenre."
        )
        var label: String?

        @Option(name: .customShort("k"), help: "The number of neighbours per seed.")
        var neighbors = 10

        @Option(
            name: .long,
            help:
                "Query only this many seeds, drawn with a fixed seed (all labelled tracks stay candidates); all by default."
        )
        var sample: Int?

        @Option(
            name: .long,
            help: "The number of k-means clusters for NMI and ARI; the number of labels by default, 0 to skip."
        )
        var clusters: Int?

        @Option(
            name: .long,
            help: "A saved clustering run to compare with the labels (NMI, ARI), as `cluster` numbers it."
        )
        var run: Int64?

        @Option(name: .long, help: "The number of bootstrap resamples of each confidence interval.")
        var resamples = 1_000

        @Flag(
            name: .long,
            help: "With --label playlist, keep Liked Songs and playlists holding more than 30 % of the tracks."
        )
        var includeCatchAll = false

        @Flag(
            name: .long,
            help:
                "Judge playlist order instead: flow against best-start greedy and a random order, per imported playlist."
        )
        var ordering = false

        @Option(name: .long, help: "The random seed for sampling, k-means and the bootstrap.")
        var seed: UInt64 = 42

        @Option(
            name: .long,
            help:
                "Grade these similarity weights instead of the defaults: a JSON file as `weights show --json` prints it (or its \"weights\" object)."
        )
        var weights: String?

        func validate() throws {
            if let label, EvaluationLabel(name: label) == nil {
                let kinds = EvaluationLabel.allCases.map(\.rawValue) + ["playlist_genre", "playlist_subgenre"]
                throw ValidationError("Please choose --label from \(kinds.joined(separator: ", ")) (got \"\(label)\").")
            }
            guard (1...100).contains(neighbors) else {
                throw ValidationError("Please choose -k from 1 to 100 (got \(neighbors)).")
            }
            if let sample, sample < 1 { throw ValidationError("Please give --sample of at least 1 (got \(sample)).") }
            if let clusters, clusters < 0 {
                throw ValidationError("Please give --clusters of 0 or more (got \(clusters)).")
            }
            guard (1...100_000).contains(resamples) else {
                throw ValidationError("Please choose --resamples from 1 to 100000 (got \(resamples)).")
            }
        }

        func run() async throws {
            let store = try global.openStore()
            if ordering {
                let report = try orderingReport(store: store)
                if global.json { try Console.printJSON(report) } else { print(report.text(width: layout.width)) }
                return
            }
            let report = try await makeReport(store: store)
            if global.json { try Console.printJSON(report) } else { print(report.text(width: layout.width)) }
        }

        /// The playlists an ordering evaluation takes: 10 to 500 tracks with features.
        static let orderingLengths = 10...500

        func orderingReport(store: LibraryStore) throws -> OrderingEvalReport {
            let library = try LoadedLibrary(store: store, scope: .all, personal: false, context: false)
            let features = library.recommender.features
            let inLibrary = Set(features.trackIDs)
            var labels = try store.trackLabels(kind: EvaluationLabel.playlist.rawValue).filter {
                inLibrary.contains($0.key)
            }
            var excluded: [CatchAllPlaylist] = []
            if !includeCatchAll {
                excluded = CatchAllPlaylist.find(in: labels, libraryTrackCount: features.rowCount)
                labels = CatchAllPlaylist.removing(excluded, from: labels)
            }
            let lengths = Self.orderingLengths
            let (chosen, skippedCount) = OrderingComparison.playlists(from: labels, lengths: lengths)
            guard !chosen.isEmpty else {
                throw CommandFailure(
                    "No imported playlist has \(lengths.lowerBound) to \(lengths.upperBound) tracks with features; import playlists (an Exportify export, or tidytuesday's playlist_name) first."
                )
            }
            let ids = Array(Set(chosen.flatMap(\.trackIDs))).sorted()
            let facts = Dictionary(uniqueKeysWithValues: zip(ids, try store.trackFacts(for: ids)))
            let playlists = chosen.map { name, trackIDs in
                (
                    name: name,
                    entries: trackIDs.map { id in
                        Features.Playlist.Entry(
                            trackID: id,
                            spotifyID: nil,
                            name: facts[id]?.name ?? "track \(id)",
                            artists: facts[id]?.artists ?? [],
                            durationMS: facts[id]?.durationMS,
                            features: library.recommender.audioFeatures(of: id)
                        )
                    }
                )
            }
            let bar = ProgressBar(label: "Ordering playlists (tracks)", quiet: global.quiet)
            let comparison = OrderingComparison.measure(
                playlists: playlists,
                resampleCount: resamples,
                seed: seed,
                progress: { done, total in bar.update(done: done, total: total) }
            )
            bar.finish()
            return OrderingEvalReport(
                comparison: comparison,
                excludedPlaylists: excluded,
                skippedPlaylistCount: skippedCount,
                lengths: lengths
            )
        }

        /// The weights of a JSON file: a `SimilarityWeights` object, alone or as the `weights` key of
        /// `weights show --json`.
        static func readWeights(path: String) throws -> SimilarityWeights {
            struct Wrapped: Decodable { var weights: SimilarityWeights }
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CommandFailure("Cannot read the weights file \(path): \(error.localizedDescription)")
            }
            if let wrapped = try? JSONDecoder().decode(Wrapped.self, from: data) { return wrapped.weights }
            do {
                return try JSONDecoder().decode(SimilarityWeights.self, from: data)
            } catch {
                throw CommandFailure("The weights file \(path) is not weights as `weights show --json` prints them.")
            }
        }

        /// The label to grade on: `--label`, or else the first of playlist, genre and subgenre that
        /// labels more than `neighbors` tracks of `trackIDs` (catch-all playlists left out unless
        /// `--include-catch-all`); genre when none does, so that the failure names it.
        func chosenLabel(store: LibraryStore, trackIDs: [Int64]) throws -> EvaluationLabel {
            if let label { return EvaluationLabel(name: label)! }
            let inLibrary = Set(trackIDs)
            for kind in [EvaluationLabel.playlist, .genre, .subgenre] {
                var labels = try store.trackLabels(kind: kind.rawValue).filter { inLibrary.contains($0.key) }
                if kind == .playlist && !includeCatchAll {
                    labels = CatchAllPlaylist.removing(
                        CatchAllPlaylist.find(in: labels, libraryTrackCount: trackIDs.count),
                        from: labels
                    )
                }
                if labels.count > neighbors { return kind }
            }
            return .genre
        }

        func makeReport(store: LibraryStore) async throws -> EvalReport {
            let library = try LoadedLibrary(
                store: store,
                scope: scope.scope(from: .library),
                personal: false,
                weights: try weights.map(Self.readWeights)
            )
            let kind = try chosenLabel(store: store, trackIDs: library.recommender.features.trackIDs)
            let recommender = library.recommender
            let features = recommender.features
            let inLibrary = Set(features.trackIDs)
            var labels = try store.trackLabels(kind: kind.rawValue).filter { inLibrary.contains($0.key) }
            var excluded: [CatchAllPlaylist] = []
            if kind == .playlist && !includeCatchAll {
                excluded = CatchAllPlaylist.find(in: labels, libraryTrackCount: features.rowCount)
                labels = CatchAllPlaylist.removing(excluded, from: labels)
            }
            guard labels.count > neighbors else {
                let left =
                    excluded.isEmpty
                    ? "" : " once the catch-all playlists are left out (--include-catch-all keeps them)"
                throw CommandFailure(
                    "Only \(labels.count) tracks with features have a \(kind.rawValue) label\(left); import a file with \(kind.rawValue) labels (such as tidytuesday's playlist_genre) first."
                )
            }
            let bar = ProgressBar(label: "Searching the tool's and the baselines' spaces", quiet: global.quiet)
            // The informed baselines get the tool's tag block only when the tool may use it for this label.
            let usableTags = recommender.blocks.first {
                $0.kind == .tags && $0.signals.isDisjoint(with: kind.derivedSignals) && recommender.weights.tags > 0
            }
            let comparison = try await RetrievalComparison.measure(
                subject: recommender.similaritySpace(excluding: kind.derivedSignals),
                baselines: SimilaritySpace.naiveBaselines(for: recommender.table)
                    + SimilaritySpace.informedBaselines(
                        for: recommender.table,
                        artistOfRow: recommender.artistOfRow,
                        tags: usableTags
                    ),
                labels: labels,
                label: kind,
                k: neighbors,
                sampleSize: sample,
                sampleSeed: seed,
                resampleCount: resamples,
                bootstrapSeed: seed,
                artistOfRow: recommender.artistOfRow,
                progress: { done, total in bar.update(done: done, total: total) }
            )
            bar.finish()
            let blocks = recommender.blocks.map { block in
                EvalReport.BlockUse(
                    block: block.kind.rawValue,
                    tracks: block.coveredRowCount,
                    leftOut: block.signals.intersection(kind.derivedSignals).map(\.rawValue).sorted()
                )
            }
            var heldOut: HeldOutPlaylists?
            var heldOutNote: String?
            if kind == .playlist {
                // Co-membership and personal weights are learned from playlists, so they are graded on
                // playlists held out of what they were built from.
                let playlistBar = ProgressBar(label: "Grading on held-out playlists", quiet: global.quiet)
                do {
                    heldOut = try BlockWeightLearning.learn(
                        recommender: recommender,
                        playlists: labels,
                        k: neighbors,
                        seed: seed,
                        progress: { done, total in playlistBar.update(done: done, total: total) }
                    ).heldOut(resampleCount: resamples, seed: seed)
                } catch let error as AnalyticsError {
                    heldOutNote = error.description
                }
                playlistBar.finish()
            } else {
                heldOutNote =
                    "Personal weights and co-membership are learned from playlists, from which \(kind.rawValue) labels may derive; `eval --label playlist` grades them on held-out playlists."
            }

            let kMeans = try await ClusterAgreement.ofKMeans(
                in: features,
                labels: labels,
                clusterCount: clusters,
                seed: seed
            )

            var saved: EvalReport.SavedRun?
            if let run {
                guard let record = try store.clusteringRun(id: run), let id = record.run.id else {
                    throw CommandFailure(
                        "There is no clustering run \(run); list the runs with `vibes-analyze vibes --list`."
                    )
                }
                var assignment: [Int64: Int] = [:]
                for item in try store.assignments(ofRun: id) { assignment[item.trackID] = item.cluster }
                saved = EvalReport.SavedRun(
                    id: id,
                    clusterCount: record.run.clusterCount,
                    agreement: ClusterAgreement(clusters: assignment, labels: labels)
                )
            }
            return EvalReport(
                label: kind.rawValue,
                comparison: comparison,
                excludedPlaylists: excluded,
                clusterCount: kMeans?.clusterCount,
                kMeans: kMeans?.agreement,
                savedRun: saved,
                blocks: blocks,
                heldOut: heldOut,
                heldOutNote: heldOutNote,
                seed: seed
            )
        }
    }
}

/// What `eval` prints.
struct EvalReport: Codable {
    var label: String
    var comparison: RetrievalComparison
    /// The catch-all playlists left out of `--label playlist`.
    var excludedPlaylists: [CatchAllPlaylist]
    var clusterCount: Int?
    /// A k-means clustering of the same space against the labels.
    var kMeans: ClusterAgreement?
    var savedRun: SavedRun?
    /// The sparse blocks of the library's similarity and the signals that kept each out of the figure.
    var blocks: [BlockUse]
    /// With `--label playlist`: co-membership and personal weights on held-out playlists.
    var heldOut: HeldOutPlaylists?
    /// Why there is no held-out grading.
    var heldOutNote: String?
    var seed: UInt64

    /// A sparse block and whether the label let it in.
    struct BlockUse: Codable {
        var block: String
        /// The tracks with a term in it.
        var tracks: Int
        /// The block's signals derived from the label: it is used when there are none.
        var leftOut: [String]

        enum CodingKeys: String, CodingKey {
            case block, tracks
            case leftOut = "left_out_for"
        }
    }

    /// A saved clustering run against the labels.
    struct SavedRun: Codable {
        var id: Int64
        var clusterCount: Int
        var agreement: ClusterAgreement

        enum CodingKeys: String, CodingKey {
            case id
            case clusterCount = "cluster_count"
            case agreement
        }
    }

    enum CodingKeys: String, CodingKey {
        case label
        case comparison = "baselines"
        case excludedPlaylists = "excluded_playlists"
        case clusterCount = "cluster_count"
        case kMeans = "k_means"
        case savedRun = "run"
        case blocks
        case heldOut = "held_out_playlists"
        case heldOutNote = "held_out_note"
        case seed
    }

    /// The tool's precision, random baseline and figures per label.
    var evaluation: RetrievalEvaluation { comparison.evaluation }

    /// The NMI of the k-means clustering, if one was made.
    var nmi: Double? { kMeans?.normalizedMutualInformation }

    /// The report for people; on a terminal of `width` columns, long lines wrap.
    func text(width: Int? = nil) -> String {
        let e = evaluation
        var lines: [String] = []
        if !excludedPlaylists.isEmpty {
            let names = excludedPlaylists.map { playlist in
                let why =
                    playlist.reason == .likedSongs
                    ? "liked songs" : "\(Int((playlist.share * 100).rounded())) % of the tracks"
                return "\"\(TerminalText.singleLine(playlist.name))\" (\(why))"
            }
            lines.append(
                "left out \(excludedPlaylists.count) catch-all playlist\(excludedPlaylists.count == 1 ? "" : "s"): \(names.joined(separator: ", ")) (--include-catch-all keeps them)"
            )
        }
        lines += [
            "label \(label): \(e.labelCount) labels, \(e.seedCount) seed tracks",
            "precision@\(e.k): \(e.precision.formatted(digits: 3))  (random \(e.randomBaseline.formatted(digits: 3)), \(e.lift.formatted(digits: 2))× chance)",
        ]
        // Names are shortened on a terminal only; piped, every name is whole.
        let isTerminal = isatty(1) != 0
        for item in e.perLabel.prefix(12) {
            let name = TerminalText.singleLine(item.label)
            lines.append(
                "  \((isTerminal ? name.truncated(to: 24) : name).padding(to: 24)) \(item.seedCount.padded(to: 6)) tracks  precision \(item.precision.formatted(digits: 3))  random \(item.randomBaseline.formatted(digits: 3))"
            )
        }
        if let interval = comparison.baselines.first?.difference {
            lines.append(
                "baselines, same \(e.seedCount) seeds: precision@\(e.k), and this tool − baseline with a paired bootstrap \(Int((interval.confidenceLevel * 100).rounded())) % CI (\(interval.resampleCount) resamples over seeds, seed \(comparison.bootstrapSeed))"
            )
        }
        let nameWidth = 36
        lines.append(
            "  \("this tool".padding(to: nameWidth)) \(e.precision.formatted(digits: 4))"
                + (comparison.beyondArtistPrecision.map { "  beyond the seed's artist \($0.formatted(digits: 4))" }
                    ?? "")
        )
        for baseline in comparison.baselines {
            var line =
                "  \(baseline.name.padding(to: nameWidth)) \(baseline.precision.formatted(digits: 4))  difference \(baseline.difference.summary)"
            if let beyond = baseline.beyondArtistPrecision, let difference = baseline.beyondArtistDifference {
                line += "  beyond the seed's artist \(beyond.formatted(digits: 4))  difference \(difference.summary)"
            }
            lines.append(line)
        }
        lines.append(
            "  \("random (exact expectation)".padding(to: nameWidth)) \(e.randomBaseline.formatted(digits: 4))  difference \(comparison.randomDifference.summary)"
        )
        if let best = comparison.bestBaseline {
            let verdict =
                best.difference.isAboveZero
                ? "beats" : best.difference.isBelowZero ? "is below" : "is not distinguishable from"
            lines.append(
                "this tool \(verdict) the best naive baseline (\(best.name)): \(best.ratio(to: e.precision).formatted(digits: 2))×"
            )
        }
        if let best = comparison.bestBeyondArtistBaseline, let subject = comparison.beyondArtistPrecision,
            let baseline = best.beyondArtistPrecision, let difference = best.beyondArtistDifference
        {
            let verdict =
                difference.isAboveZero
                ? "beats" : difference.isBelowZero ? "is below" : "is not distinguishable from"
            let ratio = baseline > 0 ? (subject / baseline).formatted(digits: 2) + "×" : "n/a"
            lines.append(
                "beyond the seed's artist, this tool \(verdict) the best naive baseline (\(best.name)): \(ratio)"
            )
        }
        for block in blocks {
            lines.append(
                block.leftOut.isEmpty
                    ? "this tool (\(comparison.subjectName)) uses the \(block.block) block (\(block.tracks) tracks)"
                    : "the \(block.block) block (\(block.tracks) tracks) is left out: \(block.leftOut.joined(separator: ", ")) derive from the \(label) label"
            )
        }
        if let heldOut {
            lines.append(
                "held-out playlists: \(heldOut.playlistCount) playlists in \(heldOut.foldCount) folds, \(heldOut.queryCount) queries; each fold graded with only the other folds' playlists known (co-membership built from them, weights learned on them); variant − default with a paired bootstrap 95 % CI"
            )
            lines.append("  \("default similarity".padding(to: 48)) \(heldOut.defaultPrecision.formatted(digits: 4))")
            for variant in heldOut.variants {
                lines.append(
                    "  \(variant.name.padding(to: 48)) \(variant.precision.formatted(digits: 4))  difference \(variant.difference.summary)"
                )
            }
        } else if let heldOutNote {
            lines.append(heldOutNote)
        }
        if let kMeans, let clusterCount {
            lines.append(
                "cluster agreement: NMI \(kMeans.normalizedMutualInformation.formatted(digits: 3)), ARI \(kMeans.adjustedRandIndex.formatted(digits: 3)) (k-means, k = \(clusterCount), seed \(seed))"
            )
        }
        if let savedRun {
            let agreement = savedRun.agreement
            lines.append(
                "run \(savedRun.id) agreement: NMI \(agreement.normalizedMutualInformation.formatted(digits: 3)), ARI \(agreement.adjustedRandIndex.formatted(digits: 3)) (k = \(savedRun.clusterCount), \(agreement.itemCount) labelled tracks)"
            )
        }
        return lines.flatMap { TerminalWidth.wrap($0, to: width, indent: "    ") }.joined(separator: "\n")
    }
}

/// What `eval --ordering` prints.
struct OrderingEvalReport: Encodable {
    var comparison: OrderingComparison
    /// The catch-all playlists left out.
    var excludedPlaylists: [CatchAllPlaylist]
    /// The playlists left out for their length.
    var skippedPlaylistCount: Int
    var lengths: ClosedRange<Int>

    enum CodingKeys: String, CodingKey {
        case comparison = "ordering"
        case excludedPlaylists = "excluded_playlists"
        case skippedPlaylistCount = "skipped_playlists"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(comparison, forKey: .comparison)
        try container.encode(excludedPlaylists, forKey: .excludedPlaylists)
        try container.encode(skippedPlaylistCount, forKey: .skippedPlaylistCount)
    }

    /// The report for people; on a terminal of `width` columns, long lines wrap.
    func text(width: Int? = nil) -> String {
        let c = comparison
        var lines: [String] = []
        if !excludedPlaylists.isEmpty {
            lines.append(
                "left out \(excludedPlaylists.count) catch-all playlist\(excludedPlaylists.count == 1 ? "" : "s") (--include-catch-all keeps them)"
            )
        }
        let tracks = c.playlists.reduce(0) { $0 + $1.trackCount }
        lines.append(
            "ordering: \(c.playlists.count) playlists of \(lengths.lowerBound)–\(lengths.upperBound) tracks (\(tracks) tracks)"
                + (skippedPlaylistCount > 0 ? "; \(skippedPlaylistCount) shorter or longer left out" : "")
        )
        if let interval = c.playlists.isEmpty ? nil : c.greedyDifference {
            lines.append(
                "transition cost per step (0–2, lower is smoother; greedy: the best of greedy nearest-neighbour tours from every start), and flow − baseline with a paired bootstrap \(Int((interval.confidenceLevel * 100).rounded())) % CI (\(interval.resampleCount) resamples over playlists, seed \(c.bootstrapSeed))"
            )
        }
        let nameWidth = 30
        lines.append("  \("flow".padding(to: nameWidth)) \(c.flow.formatted(digits: 4))")
        lines.append(
            "  \("greedy nearest neighbour".padding(to: nameWidth)) \(c.greedy.formatted(digits: 4))  difference \(c.greedyDifference.summary)"
        )
        lines.append(
            "  \("random (exact expectation)".padding(to: nameWidth)) \(c.random.formatted(digits: 4))  difference \(c.randomDifference.summary)"
        )
        lines.append("flow is lower than greedy on \(c.lower), equal on \(c.equal) and higher on \(c.higher) playlists")
        let verdict =
            c.greedyDifference.isBelowZero
            ? "is smoother than" : c.greedyDifference.isAboveZero ? "is rougher than" : "is not distinguishable from"
        lines.append("flow \(verdict) the greedy baseline")
        return lines.flatMap { TerminalWidth.wrap($0, to: width, indent: "    ") }.joined(separator: "\n")
    }
}

extension PairedBootstrap {
    /// "+0.0105 [+0.0081, +0.0130]".
    var summary: String {
        "\(estimate.signed(digits: 4)) [\(lower.signed(digits: 4)), \(upper.signed(digits: 4))]"
    }
}

extension Double {
    /// The value with a sign and a fixed number of decimals, such as `+0.0105` or `-0.0021`.
    func signed(digits: Int) -> String {
        let text = Swift.abs(self).formatted(digits: digits)
        let isZero = text.allSatisfy { $0 == "0" || $0 == "." }
        return (self < 0 && !isZero ? "-" : "+") + text
    }
}
