import Analytics
import ArgumentParser
import VibesCommandSupport
import VibesEngine

/// The seeds of `recommend` and `playlist build`: tracks, artists, moods, and what to avoid.
struct SeedOptions: ParsableArguments {
    @Option(
        name: .customLong("seed"),
        help:
            "A seed track: a Spotify ID, URI or link, an ISRC, or \"artist - title\" (\"Daft Punk - One More Time\"). Repeatable."
    )
    var tracks: [String] = []

    @Option(
        name: .customLong("seed-artist"),
        help: "A seed artist (the centroid of their tracks), by name. Repeatable."
    )
    var artists: [String] = []

    @Option(
        name: .customLong("vibe"),
        help:
            "A seed vibe: its number as `vibes` shows it (1 = the largest) or its name, from the current clustering run unless --run is given. Repeatable."
    )
    var vibes: [String] = []

    @Option(name: .customLong("run"), help: "The clustering run that --vibe numbers refer to; the latest by default.")
    var run: Int64?

    @Option(
        name: .customLong("mood"),
        help: "A seed mood on the valence–energy plane: \(MoodWord.allCases.map(\.rawValue).joined(separator: ", "))."
    )
    var moods: [MoodWord] = []

    @Option(
        name: .customLong("avoid"),
        help: "A track to move away from (\"less like this\"), given like --seed. Repeatable."
    )
    var avoidTracks: [String] = []

    @Option(name: .customLong("avoid-artist"), help: "An artist to move away from. Repeatable.")
    var avoidArtists: [String] = []

    @Option(name: .customLong("exclude-artist"), help: "An artist whose tracks are never picked. Repeatable.")
    var excludedArtists: [String] = []

    @Option(
        name: .customLong("combine"),
        help: "How several seeds combine: average (tracks between them) or interleave (some of each)."
    )
    var combination: SeedCombination = .average

    var positiveCount: Int { request.positiveCount }

    func validate() throws {
        guard positiveCount <= RecommendationQuery.maximumSeedCount else {
            throw ValidationError(
                "Please give at most \(RecommendationQuery.maximumSeedCount) seeds in all (got \(positiveCount))."
            )
        }
    }

    /// The seeds as the engine takes them.
    var request: SeedRequest {
        var request = SeedRequest()
        request.tracks = tracks
        request.artists = artists
        request.vibes = vibes
        request.run = run
        request.moods = moods
        request.avoidTracks = avoidTracks
        request.avoidArtists = avoidArtists
        request.excludedArtists = excludedArtists
        request.combination = combination
        return request
    }
}

extension MoodWord: ExpressibleByArgument {}
extension SeedCombination: ExpressibleByArgument {}

/// What `recommend` and `playlist build` pick from and how: the seeds, the tuning, the candidate
/// tracks and the similarity weights.
struct PickOptions: ParsableArguments {
    @OptionGroup(title: "Seeds") var seeds: SeedOptions
    @OptionGroup(title: "Tuning") var tuning: TunableOptions
    @OptionGroup(title: "Scope") var candidates: CandidateScopeOptions

    @Flag(
        name: .long,
        help: "Use the default similarity weights, not the personal ones `weights learn` stored."
    )
    var noPersonal = false

    /// Whether a seed or a target was given.
    var hasSeedsOrTargets: Bool {
        seeds.positiveCount > 0 || tuning.constraints.values.contains { $0.target != nil }
    }

    /// The engine's request for these options: `query` with the tuning's constraints and tempo
    /// handling, the seeds, the candidates and the weights.
    func request(query: RecommendationQuery) -> RecommendRequest {
        var request = RecommendRequest()
        request.scope = candidates.scope
        request.weights = noPersonal ? .defaults : .personal
        request.seeds = seeds.request
        request.query = query
        request.query.tempoOctave = tuning.tempoOctave
        request.query.constraints = tuning.constraints
        return request
    }
}

/// The cap on tracks by one artist in a list from seeds, as `recommend` and `playlist build`
/// take it.
struct ArtistCapOptions: ParsableArguments {
    @Option(
        name: .customLong("max-per-artist"),
        help:
            "At most this many tracks by the same main artist; 2 by default when seeded by tracks, unlimited otherwise."
    )
    var maxPerArtist: Int?
}
