import Analytics
import Features
import Foundation
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

/// Seeds people trust, on the tidytuesday excerpt: a version is found by its song's title, a seed
/// without features falls back to a version that has them, and an excluded artist stays out.
struct LibraryStoreSeedResolutionTests {
    func withLibrary(_ body: (String, LibraryStore) throws -> Void) throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            try body(folder, store)
        }
    }

    @Test func aWeakMatchListsTheClosestTracks() throws {
        try withLibrary { _, store in
            // The excerpt has four Ed Sheeran remixes and no "Love Me Like You Do".
            #expect {
                try store.resolveTrack("Ed Sheeran - Love Me Like")
            } throws: { error in
                guard case EngineError.weakMatch(_, let candidates) = error else { return false }
                return candidates.contains {
                    $0.artist == "Ed Sheeran" && $0.name.hasPrefix("Cross Me") && $0.spotifyID != nil
                }
                    && candidates.count <= 5
            }
        }
    }

    @Test func aVersionIsFoundByItsSongsTitleAndAnExcludedArtistNeverComesBack() throws {
        try withLibrary { _, store in
            var request = RecommendRequest()
            request.seeds.tracks = ["Ed Sheeran - I Dont Care"]
            request.seeds.excludedArtists = ["ed sheeran"]
            request.query.count = 10
            let found = try store.recommend(request)
            let tracks = found.result.recommendations
            #expect(tracks.count == 10)
            #expect(tracks.allSatisfy { !(found.summaries[$0.trackID]?.artists ?? []).contains("Ed Sheeran") })
            #expect(found.notes.contains { $0.contains("→ Ed Sheeran – I Don't Care (with Justin Bieber)") })
            #expect(found.notes.contains { $0.contains("excluded artist \"ed sheeran\" → Ed Sheeran, 4 tracks") })
        }
    }

    @Test func aSeedWithoutFeaturesFallsBackToAVersionThatHasThem() throws {
        try withLibrary { folder, store in
            // The original single, more popular than the remix, imported without features.
            let single = folder + "/single.csv"
            try """
            track_id,track_name,track_artist,track_popularity,danceability,energy,valence
            0hVXuCcriWRGvwMV1r5Yn9,I Don't Care,Ed Sheeran,95,,,

            """.write(toFile: single, atomically: true, encoding: .utf8)
            _ = try store.importFile(at: single)
            let recommender = try store.makeRecommender()
            let hasFeatures = { recommender.row(of: $0) != nil }
            let (id, note) = try store.resolveTrack("Ed Sheeran - I Don't Care", hasFeatures: hasFeatures)
            #expect(hasFeatures(id))
            #expect(note.contains("→ Ed Sheeran – I Don't Care (match 1.00) has no audio features; using"))
            #expect(note.contains("Loud Luxury Remix"))

            // By its Spotify ID the featureless track is refused.
            let featureless = try #require(SpotifyID(uri: "spotify:track:0hVXuCcriWRGvwMV1r5Yn9", category: "track"))
            #expect {
                try store.resolveTrack(featureless.trackURI, hasFeatures: hasFeatures)
            } throws: { error in
                guard case EngineError.seedWithoutFeatures(.spotifyID(let id)) = error else { return false }
                return id == featureless
            }
        }
    }
}
