import Ingest
import VibesCommandSupport
import VibesEngine

extension EngineError {
    /// The one-line message of the command-line tool: the problem and what to run next.
    var commandLineMessage: String {
        let fetch = "run `vibes-analyze features fetch`, or choose another seed."
        switch self {
        case .noTracksWithFeatures(let path):
            return "The library at \(path) has no tracks with audio features; run `vibes-analyze import FILE` first."
        case .noSuchArtist(let query):
            return "No artist in the library resembles \"\(query)\"; check the spelling."
        case .trackNotInLibrary(let id):
            return "The track \(id.trackURI) is not in the library; import it first or search by title."
        case .noTrackWithISRC(let isrc):
            return "No track in the library has the ISRC \(isrc); import it first or search by title."
        case .seedWithoutFeatures(.spotifyID(let id)):
            return "The track \(id.trackURI) has no audio features here; " + fetch
        case .seedWithoutFeatures(.isrc(let isrc)):
            return "The track with ISRC \(isrc) has no audio features here; " + fetch
        case .seedWithoutFeatures(.search(let query, let match)):
            return "\"\(query)\" is \(match.summary), which has no audio features here; " + fetch
        case .weakMatch(let query, let candidates) where candidates.isEmpty:
            return
                "No track in the library resembles \"\(query)\"; check the spelling, or give a Spotify ID or an ISRC."
        case .weakMatch(let query, let candidates):
            let closest = candidates.map { candidate in
                let source = candidate.spotifyID.map { "spotify:track:\($0)" } ?? "store ID \(candidate.trackID)"
                let features = candidate.hasFeatures ? "" : ", no audio features"
                return "\(candidate.artist.map { "\($0) – " } ?? "")\(candidate.name) "
                    + "(match \(candidate.score.formatted(digits: 2)), \(source)\(features))"
            }
            return
                "No track in the library matches \"\(query)\" well enough. The closest: \(closest.joined(separator: "; "))."
                + " Give one of them as \"artist - title\", or a Spotify ID, URI or link, or an ISRC."
        case .noClusteringRun(let id?):
            return "There is no clustering run \(id); list the runs with `vibes-analyze vibes --list`."
        case .noClusteringRun(nil):
            return "There are no vibes yet; find them with `vibes-analyze cluster` first."
        case .vibeNumberOutOfRange(let number, let count, let runID):
            return "Run \(runID) has vibes 1 to \(count); vibe \(number) is not one of them."
        case .ambiguousVibe(let text, let runID, let candidates):
            let listed = candidates.prefix(5).map { "\($0.number) '\($0.name)'" }.joined(separator: ", ")
            return
                "'\(text)' starts the names of several vibes of run \(runID) (\(listed)); give more of the name or its number."
        case .noSuchVibe(let text, let runID, let closest):
            return "Run \(runID) has no vibe called '\(text)'."
                + (closest.map { " Did you mean '\($0.name)' (vibe \($0.number))?" }
                    ?? " `vibes-analyze vibes` lists its vibes by number and name.")
        case .playlistWithoutFeatures(let name):
            return "The playlist \"\(name)\" has no tracks with audio features to order; "
                + "`vibes-analyze features fetch --playlist NAME` fills them in."
        case .nothingToExtend(let name):
            return
                "No track of \(name) has audio features, so there is nothing to extend it from; `vibes-analyze features fetch` or an import adds them."
        case .nothingBeyondPlaylist(let name):
            return
                "The library holds no track with audio features beyond \(name)'s own; `vibes-analyze sync` or an import adds more."
        case .noTracksToCluster(let reference, let scope):
            return reference > 0 && scope == .library
                ? "your library has no tracks with audio features; its \(reference) reference tracks are candidates only. Cluster them too with --from all, or import your own tracks without --reference."
                : "there are no tracks with audio features to cluster. Run `vibes-analyze sync` or `vibes-analyze import FILE` first; `vibes-analyze features status` says what is missing."
        case .runNotSaved(let cause, let file):
            return "the run could not be saved. \(Console.message(for: cause)) It was kept in \(file); "
                + "save it with `vibes-analyze cluster --restore \(file)`."
        case .noKeptRun(let path):
            return "\(path): no such file (expected a run kept by `vibes-analyze cluster`)."
        case .notAKeptRun(let path):
            return "\(path) is not a run kept by `vibes-analyze cluster`."
        case .tooFewLabelledTracks(let count, let label, let catchAllsLeftOut):
            let left =
                catchAllsLeftOut ? " once the catch-all playlists are left out (--include-catch-all keeps them)" : ""
            return
                "Only \(count) tracks with features have a \(label) label\(left); import a file with \(label) labels (such as tidytuesday's playlist_genre) first."
        case .noPlaylistsToOrder(let lengths):
            return
                "No imported playlist has \(lengths.lowerBound) to \(lengths.upperBound) tracks with features; import playlists (an Exportify export, or tidytuesday's playlist_name) first."
        case .playlistNotOnSpotify(let name, let action):
            return "\(name) is not on Spotify; `vibes-analyze playlist push \"\(name)\"` puts it there"
                + (action == .extend ? " first." : ".")
        case .noSuchRecipe(let name):
            return "There is no recipe named \"\(name)\"; `vibes-analyze playlist recipe list` lists them."
        case .reorderFailed(let name, let cause):
            switch cause {
            case .orderMismatch, .countMismatch:
                return "\(cause) Run `vibes-analyze playlist reorder \"\(name)\"` again, or `--undo` to put it back."
            case .unwritableItems: return "\(cause) Leave out --rewrite to reorder by moves."
            default: return "\(cause)"
            }
        }
    }
}
