import Analytics
import Features
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

struct LibraryStoreEvaluationTests {
    /// An evaluation with few resamples and no k-means, as `change` adjusts it.
    static func request(_ change: (inout EvaluationRequest) -> Void = { _ in }) -> EvaluationRequest {
        var request = EvaluationRequest()
        request.resampleCount = 50
        request.clusterCount = 0
        change(&request)
        return request
    }

    @Test func precisionBeatsChanceOnLabelsTheSpaceHolds() async throws {
        try await withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: TidyTuesdaySongs.Song.synthetic(count: 80))
            let report = try await store.evaluate(
                Self.request {
                    $0.label = .genre
                    $0.neighbors = 5
                    $0.clusterCount = nil
                    $0.resampleCount = 1_000
                }
            )
            // "loud"/"soft" split on energy, which the space contains: neighbours should mostly agree.
            #expect(report.label == "genre")
            #expect(report.evaluation.seedCount == 80)
            #expect(report.evaluation.precision > report.evaluation.randomBaseline + 0.2)
            #expect(report.nmi != nil && report.clusterCount == 2)
            #expect(report.heldOut == nil && report.heldOutNote?.contains("held-out playlists") == true)
        }
    }

    @Test func catchAllPlaylistsAreLeftOutUnlessAsked() async throws {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            _ = try store.importFile(at: Fixtures.path("exportify/Liked_Songs.csv"))
            let report = try await store.evaluate(
                Self.request {
                    $0.label = .playlist
                    $0.neighbors = 3
                }
            )
            // The excerpt's "Pop Remix" holds 30 of its 42 rows, more than 30 % of the tracks imported.
            let left = report.excludedPlaylists.map(\.name).sorted()
            #expect(left == ["Liked Songs", "Pop Remix"], "\(left)")
            #expect(report.excludedPlaylists.first { $0.name == "Liked Songs" }?.reason == .likedSongs)
            let kept = try await store.evaluate(
                Self.request {
                    $0.label = .playlist
                    $0.neighbors = 3
                    $0.includesCatchAll = true
                }
            )
            #expect(kept.excludedPlaylists.isEmpty)
            #expect(kept.evaluation.perLabel.contains { $0.label == "Liked Songs" })
        }
    }

    @Test func withoutALabelOneTheLibraryHasIsPicked() async throws {
        try await withTemporaryDirectory { folder in
            // The bundled sample has playlists: they are the label.
            let sample = try LibraryStore(path: folder + "/library.sqlite")
            _ = try sample.importFile(at: SampleLibrary.path)
            let report = try await sample.evaluate(Self.request { $0.sampleSize = 100 })
            #expect(report.label == "playlist")
            // A library of liked songs alone has no label to grade on: the failure names genre.
            let liked = try LibraryStore(path: folder + "/liked.sqlite")
            _ = try liked.importFile(at: Fixtures.path("exportify/Liked_Songs.csv"))
            await #expect {
                try await liked.evaluate(Self.request())
            } throws: { error in
                guard case EngineError.tooFewLabelledTracks(_, "genre", false) = error else { return false }
                return true
            }
        }
    }

    @Test func aSavedRunIsComparedWithTheLabels() async throws {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: SampleLibrary.path)
            var settings = VibeClustering.Settings(schema: .default, clusterCount: .fixed(6))
            settings.seed = 3
            let found = try await store.findVibes(VibeRequest(settings: settings))
            let report = try await store.evaluate(
                Self.request {
                    $0.runID = found.runID
                    $0.sampleSize = 100
                }
            )
            #expect(report.savedRun?.id == found.runID && report.savedRun?.clusterCount == 6)
            await #expect {
                try await store.evaluate(Self.request { $0.runID = 7 })
            } throws: { error in
                guard case EngineError.noClusteringRun(7) = error else { return false }
                return true
            }
        }
    }

    @Test func orderingComparesFlowWithGreedyOnThePlaylists() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: SampleLibrary.path)
            var stages: Set<EvaluationStage> = []
            let report = try store.evaluateOrdering(Self.request { $0.seed = 3 }) { stage, _, _ in
                stages.insert(stage)
            }
            #expect(stages == [.ordering])
            #expect(report.lengths == LibraryStore.orderingEvaluationLengths)
            #expect(!report.comparison.playlists.isEmpty)
            #expect(report.comparison.playlists.allSatisfy { report.lengths.contains($0.trackCount) })
            #expect(report.comparison.flow <= report.comparison.random)
        }
    }

    @Test func orderingWithoutPlaylistsIsATypedError() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: TidyTuesdaySongs.Song.synthetic(count: 30))
            #expect {
                try store.evaluateOrdering(Self.request())
            } throws: { error in
                guard case EngineError.noPlaylistsToOrder(let lengths) = error else { return false }
                return lengths == LibraryStore.orderingEvaluationLengths
            }
        }
    }
}
