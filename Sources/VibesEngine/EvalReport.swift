import Analytics
import Features
import Ingest

/// What `eval` prints.
public struct EvalReport: Codable, Sendable {
    public var label: String
    public var comparison: RetrievalComparison
    /// The catch-all playlists left out of `--label playlist`.
    public var excludedPlaylists: [CatchAllPlaylist]
    public var clusterCount: Int?
    /// A k-means clustering of the same space against the labels.
    public var kMeans: ClusterAgreement?
    public var savedRun: SavedRun?
    /// The sparse blocks of the library's similarity and the signals that kept each out of the figure.
    public var blocks: [BlockUse]
    /// With `--label playlist`: co-membership and personal weights on held-out playlists.
    public var heldOut: HeldOutPlaylists?
    /// Why there is no held-out grading.
    public var heldOutNote: String?
    public var seed: UInt64

    /// A sparse block and whether the label let it in.
    public struct BlockUse: Codable, Sendable {
        public var block: String
        /// The tracks with a term in it.
        public var tracks: Int
        /// The block's signals derived from the label: it is used when there are none.
        public var leftOut: [String]

        enum CodingKeys: String, CodingKey {
            case block, tracks
            case leftOut = "left_out_for"
        }
    }

    /// A saved clustering run against the labels.
    public struct SavedRun: Codable, Sendable {
        public var id: Int64
        public var clusterCount: Int
        public var agreement: ClusterAgreement

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
    public var evaluation: RetrievalEvaluation { comparison.evaluation }

    /// The NMI of the k-means clustering, if one was made.
    public var nmi: Double? { kMeans?.normalizedMutualInformation }
}

/// What `eval --ordering` prints.
public struct OrderingEvalReport: Encodable, Sendable {
    public var comparison: OrderingComparison
    /// The catch-all playlists left out.
    public var excludedPlaylists: [CatchAllPlaylist]
    /// The playlists left out for their length.
    public var skippedPlaylistCount: Int
    public var lengths: ClosedRange<Int>

    enum CodingKeys: String, CodingKey {
        case comparison = "ordering"
        case excludedPlaylists = "excluded_playlists"
        case skippedPlaylistCount = "skipped_playlists"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(comparison, forKey: .comparison)
        try container.encode(excludedPlaylists, forKey: .excludedPlaylists)
        try container.encode(skippedPlaylistCount, forKey: .skippedPlaylistCount)
    }
}

/// What an evaluation grades and how.
public struct EvaluationRequest: Sendable {
    /// The tracks evaluated.
    public var scope: TrackScope = .library
    /// The label graded on; by default playlist when the library has playlists, else genre,
    /// else subgenre (the first that labels more than ``neighbors`` tracks).
    public var label: EvaluationLabel?
    /// The neighbours per seed.
    public var neighbors = 10
    /// Query only this many seeds, drawn with ``seed``; all by default.
    public var sampleSize: Int?
    /// The k-means clusters for NMI and ARI; the number of labels by default, 0 to skip.
    public var clusterCount: Int?
    /// A saved clustering run to compare with the labels.
    public var runID: Int64?
    /// The bootstrap resamples of each confidence interval.
    public var resampleCount = 1_000
    /// Whether to keep catch-all playlists (Liked Songs, or any holding more than 30 % of the
    /// tracks) with the playlist label, and in an ordering evaluation.
    public var includesCatchAll = false
    /// The random seed for sampling, k-means and the bootstrap.
    public var seed: UInt64 = 42
    /// The weights graded, instead of the defaults.
    public var weights: SimilarityWeights?

    public init() {}
}

/// The stage an evaluation's progress is in.
public enum EvaluationStage: Sendable {
    /// Searching the tool's and the baselines' spaces.
    case retrieval
    /// Grading on held-out playlists.
    case heldOutPlaylists
    /// Ordering the playlists.
    case ordering
}

extension LibraryStore {
    /// The playlists an ordering evaluation takes: 10 to 500 tracks with features.
    public static let orderingEvaluationLengths = 10...500

    /// Measures how well neighbours and clusters agree with labels the user already has:
    /// precision@k against naive baselines and chance, held-out playlists, and NMI and ARI.
    ///
    /// - Parameters:
    ///   - request: The label, scope, sample and seeds.
    ///   - progress: Called with the stage, the work done and the work in all.
    /// - Returns: The report.
    /// - Throws: ``EngineError/tooFewLabelledTracks(count:label:catchAllsLeftOut:)``,
    ///   ``EngineError/noClusteringRun(id:)`` for a missing run, and what the analyses throw.
    public func evaluate(
        _ request: EvaluationRequest,
        progress: (@Sendable (EvaluationStage, _ done: Int, _ total: Int) -> Void)? = nil
    ) async throws -> EvalReport {
        let recommender = try makeRecommender(
            scope: request.scope,
            weights: request.weights.map { .given($0) } ?? .defaults
        )
        let features = recommender.features
        let kind = try request.label ?? chosenLabel(trackIDs: features.trackIDs, request: request)
        let (labels, excluded) = try self.labels(
            kind,
            of: features.trackIDs,
            includingCatchAll: request.includesCatchAll
        )
        guard labels.count > request.neighbors else {
            throw EngineError.tooFewLabelledTracks(
                count: labels.count,
                label: kind.rawValue,
                catchAllsLeftOut: !excluded.isEmpty
            )
        }
        // The informed baselines get the tool's tag block only when the tool may use it for this label.
        let usableTags = recommender.blocks.first {
            $0.kind == .tags && $0.signals.isDisjoint(with: kind.derivedSignals) && recommender.weights.tags > 0
        }
        let searching: (@Sendable (Int, Int) -> Void)? = progress.map { progress in
            { @Sendable done, total in progress(.retrieval, done, total) }
        }
        let subject = recommender.similaritySpace(excluding: kind.derivedSignals)
        var baselines =
            SimilaritySpace.naiveBaselines(for: recommender.table)
            + SimilaritySpace.informedBaselines(
                for: recommender.table,
                artistOfRow: recommender.artistOfRow,
                tags: usableTags
            )
        // What the embedding of analysed files adds: the same space without it, on the same queries.
        if subject.signals.contains(.audioEmbedding) {
            var without = recommender.similaritySpace(excluding: kind.derivedSignals.union([.audioEmbedding]))
            without.name += " (without the embedding)"
            baselines.append(without)
        }
        let comparison = try await RetrievalComparison.measure(
            subject: subject,
            baselines: baselines,
            labels: labels,
            label: kind,
            k: request.neighbors,
            sampleSize: request.sampleSize,
            sampleSeed: request.seed,
            resampleCount: request.resampleCount,
            bootstrapSeed: request.seed,
            artistOfRow: recommender.artistOfRow,
            progress: searching
        )
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
            do {
                heldOut = try BlockWeightLearning.learn(
                    recommender: recommender,
                    playlists: labels,
                    k: request.neighbors,
                    seed: request.seed,
                    progress: progress.map { progress in { done, total in progress(.heldOutPlaylists, done, total) } }
                ).heldOut(resampleCount: request.resampleCount, seed: request.seed)
            } catch let error as AnalyticsError {
                heldOutNote = error.description
            }
        } else {
            heldOutNote =
                "Personal weights and co-membership are learned from playlists, from which \(kind.rawValue) labels may derive; `eval --label playlist` grades them on held-out playlists."
        }

        let kMeans = try await ClusterAgreement.ofKMeans(
            in: features,
            labels: labels,
            clusterCount: request.clusterCount,
            seed: request.seed
        )

        var saved: EvalReport.SavedRun?
        if let run = request.runID {
            guard let record = try clusteringRun(id: run), let id = record.run.id else {
                throw EngineError.noClusteringRun(id: run)
            }
            var assignment: [Int64: Int] = [:]
            for item in try assignments(ofRun: id) { assignment[item.trackID] = item.cluster }
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
            seed: request.seed
        )
    }

    /// The label to grade on when none is given: the first of playlist, genre and subgenre that
    /// labels more than `request.neighbors` of `trackIDs` (catch-all playlists left out unless
    /// asked); genre when none does, so that the failure names it.
    private func chosenLabel(trackIDs: [Int64], request: EvaluationRequest) throws -> EvaluationLabel {
        for kind in [EvaluationLabel.playlist, .genre, .subgenre] {
            let labels = try labels(kind, of: trackIDs, includingCatchAll: request.includesCatchAll).labels
            if labels.count > request.neighbors { return kind }
        }
        return .genre
    }

    /// Judges playlist order: every imported playlist with
    /// ``orderingEvaluationLengths`` tracks with features (catch-alls left out unless asked) is
    /// ordered by flow and by best-start greedy nearest neighbour, and the mean transition cost
    /// per step of each is compared, with paired bootstrap CIs over the playlists.
    ///
    /// - Parameters:
    ///   - request: Its catch-all choice, resample count and seed are used.
    ///   - progress: Called with ``EvaluationStage/ordering``, the tracks done and the tracks.
    /// - Returns: The report.
    /// - Throws: ``EngineError/noPlaylistsToOrder(lengths:)`` when no playlist has such a length.
    public func evaluateOrdering(
        _ request: EvaluationRequest,
        progress: ((EvaluationStage, _ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> OrderingEvalReport {
        let recommender = try makeRecommender(scope: .all, weights: .defaults, context: false)
        let (labels, excluded) = try self.labels(
            .playlist,
            of: recommender.features.trackIDs,
            includingCatchAll: request.includesCatchAll
        )
        let lengths = Self.orderingEvaluationLengths
        let (chosen, skippedCount) = OrderingComparison.playlists(from: labels, lengths: lengths)
        guard !chosen.isEmpty else { throw EngineError.noPlaylistsToOrder(lengths: lengths) }
        let ids = Array(Set(chosen.flatMap(\.trackIDs))).sorted()
        let entries = try playlistEntries(for: ids, features: recommender.audioFeatures(of:))
        let byID = Dictionary(uniqueKeysWithValues: zip(ids, entries))
        let comparison = OrderingComparison.measure(
            playlists: chosen.map { name, trackIDs in (name: name, entries: trackIDs.compactMap { byID[$0] }) },
            resampleCount: request.resampleCount,
            seed: request.seed,
            progress: progress.map { progress in { done, total in progress(.ordering, done, total) } }
        )
        return OrderingEvalReport(
            comparison: comparison,
            excludedPlaylists: excluded,
            skippedPlaylistCount: skippedCount,
            lengths: lengths
        )
    }
}
