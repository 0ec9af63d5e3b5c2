import Features
import Ingest

/// Why an action of the engine could not run: what was asked and what the library holds instead.
///
/// The descriptions name the problem only; the command-line tool words each case with what to
/// run next.
public enum EngineError: Error, CustomStringConvertible {
    /// The scope has no tracks with audio features.
    case noTracksWithFeatures(storePath: String)
    /// No artist's name resembles `query`.
    case noSuchArtist(query: String)
    /// A seed given by Spotify ID names a track the library does not hold.
    case trackNotInLibrary(SpotifyID)
    /// A seed given by ISRC matches no track of the library.
    case noTrackWithISRC(String)
    /// The track a seed names has no audio features (in scope).
    case seedWithoutFeatures(SeedWithoutFeatures)
    /// No track matches `query` well enough; `candidates` are the closest ones, best first.
    case weakMatch(query: String, candidates: [SeedCandidate])
    /// There is no clustering run `id`, or none at all when `id` is `nil`.
    case noClusteringRun(id: Int64?)
    /// A vibe number outside 1…`vibeCount` of run `runID`.
    case vibeNumberOutOfRange(number: Int, vibeCount: Int, runID: Int64)
    /// `text` starts the names of several vibes (`numbers` and `names`) of run `runID`.
    case ambiguousVibe(text: String, runID: Int64, candidates: [NamedVibe])
    /// No vibe of run `runID` is called `text`; `closest` is the nearest name, if any.
    case noSuchVibe(text: String, runID: Int64, closest: NamedVibe?)
    /// A playlist to order has no tracks with audio features.
    case playlistWithoutFeatures(name: String)
    /// No track of the playlist to extend has audio features.
    case nothingToExtend(name: String)
    /// The library holds no track with features besides the playlist's own.
    case nothingBeyondPlaylist(name: String)
    /// The scope has no tracks with features to cluster; the library holds `referenceTracks`
    /// reference tracks, which only `TrackScope.all` includes.
    case noTracksToCluster(referenceTracks: Int, scope: TrackScope)
    /// A clustering run could not be saved (`cause`) and was kept in the file `keptIn`.
    case runNotSaved(cause: StoreError, keptIn: String)
    /// There is no file `path` holding a kept run.
    case noKeptRun(path: String)
    /// The file `path` does not hold a kept run.
    case notAKeptRun(path: String)
    /// Too few tracks carry the label an evaluation grades on.
    case tooFewLabelledTracks(count: Int, label: String, catchAllsLeftOut: Bool)
    /// No imported playlist has a length an ordering evaluation takes.
    case noPlaylistsToOrder(lengths: ClosedRange<Int>)
    /// The stored playlist `name` is not on Spotify, which `action` needs.
    case playlistNotOnSpotify(name: String, action: SpotifyPlaylistAction)
    /// There is no playlist recipe called `name`.
    case noSuchRecipe(name: String)
    /// Spotify refused a reorder or undo of the stored playlist `playlist`, or did not confirm it.
    case reorderFailed(playlist: String, cause: PlaylistReorderError)

    /// What needs a stored playlist to be on Spotify.
    public enum SpotifyPlaylistAction: Equatable, Sendable {
        /// `extend` with a push.
        case extend
        /// A reorder or its undo.
        case reorder
    }

    /// Which seed has no audio features.
    public enum SeedWithoutFeatures: Equatable, Sendable {
        /// Given by Spotify ID.
        case spotifyID(SpotifyID)
        /// Given by ISRC.
        case isrc(String)
        /// Found by a search for `query`: `match` is the track it found.
        case search(query: String, match: SeedCandidate)
    }

    /// A vibe by its number (1 for the largest) and name.
    public struct NamedVibe: Equatable, Sendable {
        public var number: Int
        public var name: String
    }

    public var description: String {
        switch self {
        case .noTracksWithFeatures(let path): "The library at \(path) has no tracks with audio features."
        case .noSuchArtist(let query): "No artist in the library resembles \"\(query)\"."
        case .trackNotInLibrary(let id): "The track \(id.trackURI) is not in the library."
        case .noTrackWithISRC(let isrc): "No track in the library has the ISRC \(isrc)."
        case .seedWithoutFeatures(.spotifyID(let id)): "The track \(id.trackURI) has no audio features."
        case .seedWithoutFeatures(.isrc(let isrc)): "The track with ISRC \(isrc) has no audio features."
        case .seedWithoutFeatures(.search(let query, let match)):
            "\"\(query)\" is \(match.summary), which has no audio features."
        case .weakMatch(let query, let candidates) where candidates.isEmpty:
            "No track in the library resembles \"\(query)\"."
        case .weakMatch(let query, let candidates):
            "No track in the library matches \"\(query)\" well enough; the closest: "
                + candidates.map(\.summary).joined(separator: "; ") + "."
        case .noClusteringRun(let id?): "There is no clustering run \(id)."
        case .noClusteringRun(nil): "There are no clustering runs yet."
        case .vibeNumberOutOfRange(let number, let count, let runID):
            "Run \(runID) has vibes 1 to \(count); vibe \(number) is not one of them."
        case .ambiguousVibe(let text, let runID, _): "'\(text)' starts the names of several vibes of run \(runID)."
        case .noSuchVibe(let text, let runID, _): "Run \(runID) has no vibe called '\(text)'."
        case .playlistWithoutFeatures(let name): "The playlist \"\(name)\" has no tracks with audio features."
        case .nothingToExtend(let name): "No track of \(name) has audio features to extend it from."
        case .nothingBeyondPlaylist(let name):
            "The library holds no track with audio features beyond \(name)'s own."
        case .noTracksToCluster: "There are no tracks with audio features to cluster."
        case .runNotSaved(let cause, let file): "The run could not be saved (\(cause)); it was kept in \(file)."
        case .noKeptRun(let path): "\(path): no such file."
        case .notAKeptRun(let path): "\(path) is not a kept clustering run."
        case .tooFewLabelledTracks(let count, let label, _):
            "Only \(count) tracks with features have a \(label) label."
        case .noPlaylistsToOrder(let lengths):
            "No imported playlist has \(lengths.lowerBound) to \(lengths.upperBound) tracks with features."
        case .playlistNotOnSpotify(let name, _): "\(name) is not on Spotify."
        case .reorderFailed(_, let cause): cause.description
        case .noSuchRecipe(let name): "There is no recipe named \"\(name)\"."
        }
    }
}

/// A track a seed search found, as the user would pick it.
public struct SeedCandidate: Equatable, Sendable {
    /// The track's store ID.
    public var trackID: Int64
    /// Its main artist, if any.
    public var artist: String?
    public var name: String
    /// Its Spotify ID, if any.
    public var spotifyID: String?
    /// How well it matched the search, 0…1.
    public var score: Double
    /// Whether it has audio features (in scope): only such a track can seed.
    public var hasFeatures: Bool

    /// "Artist – Title (match 0.72)".
    public var summary: String {
        (artist.map { "\($0) – " } ?? "") + name + " (match \(score.formatted(digits: 2)))"
    }
}
