import Analytics
import ArgumentParser
import Features
import Ingest
import VibesCommandSupport
import VibesEngine

extension VibesAnalyze {
    /// `vibes-analyze recommend`: Spotify's retired `/v1/recommendations`, over the library.
    struct Recommend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recommend",
            abstract: "Recommend tracks from your library like a seed, with Spotify's min/max/target tuning.",
            discussion: """
                Seeds are tracks (--seed), artists (--seed-artist), saved vibes (--vibe) and moods (--mood), up to five in all. \
                Results are ranked by cosine similarity in the scaled feature space; --min-*/--max-* options \
                are hard filters and --target-* options pull the query towards a value. Every result says \
                which features differ most from the seed.

                Example: vibes-analyze recommend --seed "Daft Punk - One More Time" --target-energy 0.8 --max-tempo 130 -n 10
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var layout: TableOptions
        @OptionGroup var pick: PickOptions

        @Option(name: [.customShort("n"), .long], help: "The number of tracks to return (1–10000).")
        var count = 20

        @Option(
            name: .long,
            help: "Variety against similarity, 0 (most similar only) to 1 (most varied), by maximal marginal relevance."
        )
        var diversity = 0.0

        @OptionGroup var artistCap: ArtistCapOptions

        @Flag(
            name: .customLong("same-artist"),
            help: "Let the seed tracks' own artists fill the list (by default at most 2 of their tracks)."
        )
        var sameArtist = false

        func validate() throws {
            guard (1...RecommendationQuery.maximumCount).contains(count) else {
                throw ValidationError(
                    "Please ask for 1 to \(RecommendationQuery.maximumCount) tracks with -n (got \(count))."
                )
            }
            guard (0...1).contains(diversity) else {
                throw ValidationError("Please give --diversity from 0 to 1 (got \(diversity)).")
            }
            if let maxPerArtist = artistCap.maxPerArtist, maxPerArtist < 1 {
                throw ValidationError("Please give --max-per-artist of at least 1 (got \(maxPerArtist)).")
            }
            guard pick.hasSeedsOrTargets else {
                throw ValidationError(
                    "Please give a seed (--seed, --seed-artist, --vibe, --mood) or a target (--target-energy 0.8, …)."
                )
            }
        }

        func run() async throws {
            var timer = PhaseTimer(isEnabled: global.timings)
            let store = try global.openStore()
            timer.lap("open")
            let found = try describingScope { try store.recommend(request) { timer.lap($0) } }
            let report = RecommendReport(found)
            if global.json {
                try Console.printJSON(report)
            } else {
                if !global.quiet { report.notes.forEach(Console.diagnostic) }
                print(report.table(width: layout.width))
            }
            timer.lap("render")
            timer.report()
        }

        /// What to recommend, as the engine takes it.
        var request: RecommendRequest {
            var request = pick.request(query: RecommendationQuery(count: count, diversity: diversity))
            request.maximumPerArtist = artistCap.maxPerArtist
            request.sameArtist = sameArtist
            return request
        }
    }
}

/// What `recommend` prints.
struct RecommendReport: Codable {
    struct Track: Codable {
        var rank: Int
        var trackID: Int64
        /// The track's Spotify ID (22 base-62 characters), as `playlist build` spells it.
        var spotifyID: String?
        var name: String
        var artists: [String]
        var similarity: Double
        var score: Double
        var targetFit: Double?
        var seed: String
        var differences: [FeatureDifference]
        /// What made the track close: "same artist", "shares 'yacht rock'", "sound: …".
        var why: [String]
        /// Whether the track is in the user's library; `false` for a reference-pool track, new to
        /// the user.
        var inLibrary: Bool

        enum CodingKeys: String, CodingKey {
            case rank
            case trackID = "track_id"
            case spotifyID = "spotify_id"
            case name, artists, similarity, score
            case targetFit = "target_fit"
            case seed
            case differences
            case why
            case inLibrary = "in_library"
        }
    }

    var notes: [String]
    var pool: RecommendationPool
    var seeds: [String]
    var tracks: [Track]

    /// The report of `found`, ranked from 1.
    init(_ found: Recommendations) {
        notes = found.notes
        pool = found.result.pool
        seeds = found.result.seeds
        tracks = found.result.recommendations.enumerated().map { rank, recommendation in
            let summary = found.summaries[recommendation.trackID]
            return Track(
                rank: rank + 1,
                trackID: recommendation.trackID,
                spotifyID: summary?.spotifyID.flatMap { SpotifyID($0)?.rawValue },
                name: summary?.name ?? "",
                artists: summary?.artists ?? [],
                similarity: recommendation.similarity,
                score: recommendation.score,
                targetFit: recommendation.targetFit,
                seed: recommendation.seed,
                differences: recommendation.differences,
                why: recommendation.reasons,
                inLibrary: !found.referenceTrackIDs.contains(recommendation.trackID)
            )
        }
    }

    /// The human-readable table: rank, track, similarity and the features that differ most.
    ///
    /// - Parameter width: The terminal's width: titles are shortened with "…" to fit, and the
    ///   differing features are left out (`--wide` keeps them). `nil` (piped, or `--wide`) prints
    ///   every line whole.
    func table(width: Int? = nil) -> String {
        var lines: [String] = []
        // A column marks tracks new to the user, when any are.
        let marksNew = tracks.contains { !$0.inLibrary }
        for track in tracks {
            let title = (track.artists.first.map { "\($0) – " } ?? "") + track.name
            let prefix = "\(track.rank.padded(to: 3)). "
            // The first number is the one the list is sorted by: the similarity, or with targets the
            // score that blends it with the fit (the fit alone without seeds).
            var tail = "  sim \(track.similarity.formatted(digits: 3))"
            if let fit = track.targetFit {
                tail = seeds.allSatisfy { $0 == "targets" } ? "" : "  score \(track.score.formatted(digits: 3))" + tail
                tail += "  fit \(fit.formatted(digits: 2))"
            }
            if seeds.count > 1 { tail += "  [\(width == nil ? track.seed : track.seed.fitted(to: 16))]" }
            if marksNew { tail += track.inLibrary ? "     " : "  new" }
            if let width {
                let titleWidth = Swift.max(12, Swift.min(48, width - prefix.count - tail.count))
                lines.append(prefix + title.fitted(to: titleWidth).padding(to: titleWidth) + tail)
            } else {
                let differences = track.differences.map(RecommendReport.describe).joined(separator: ", ")
                let why = track.why.filter { !$0.hasPrefix("sound: ") }
                lines.append(
                    prefix + title.padding(to: 48) + tail + "  "
                        + (why.isEmpty ? differences : why.joined(separator: "; ") + "; " + differences)
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    /// "energy +1.2σ (0.91 vs 0.62)".
    static func describe(_ difference: FeatureDifference) -> String {
        let sign = difference.deviations >= 0 ? "+" : "−"
        let digits = difference.feature == .tempo || difference.feature == .loudness ? 1 : 2
        let value: String
        let reference: String
        if difference.feature == .key {
            value = AudioFeature.pitchClassName(of: difference.value)
            reference = AudioFeature.pitchClassName(of: difference.reference)
        } else {
            value = difference.value.formatted(digits: digits)
            reference = difference.reference.formatted(digits: digits)
        }
        return
            "\(difference.feature.rawValue) \(sign)\(abs(difference.deviations).formatted(digits: 1))σ (\(value) vs \(reference))"
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension Int {
    func padded(to width: Int) -> String {
        let text = String(self)
        return String(repeating: " ", count: Swift.max(0, width - text.count)) + text
    }
}

extension String {
    func truncated(to width: Int) -> String {
        count <= width ? self : String(prefix(width - 1)) + "…"
    }

    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
