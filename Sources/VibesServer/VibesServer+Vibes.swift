import Analytics
import Features
import FlyingFox
import Foundation
import Ingest
import Synchronization
import VibesEngine

// The vibes view: one vibe in full (`GET /api/vibes/{number}`), and re-clustering
// (`POST /api/vibes/cluster`), through the engine calls of `vibes N` and `cluster`.

extension VibesServer {
    /// The examples a vibe's view shows.
    static let vibeExampleCount = 10

    /// `GET /api/vibes/{number}`: one vibe of the current run, by number (1 for the largest) or
    /// name, with its profile, examples, top genres and every member.
    func vibe(_ text: String) throws -> HTTPResponse {
        let reference = VibeReference(text.removingPercentEncoding ?? text)
        let detail = try answeringEngineErrors {
            try store.vibeDetail(reference, runID: nil, exampleCount: Self.vibeExampleCount)
        }
        return try Self.json(VibeBody(detail))
    }

    /// `POST /api/vibes/cluster` with `{"k": 6}` or `{"k": "auto"}`: clusters the library again as
    /// `vibes-analyze cluster --k K` does with its other options at their defaults, saves the run
    /// and makes it current; answers 201 with the new run as `GET /api/vibes` shows it. One
    /// clustering runs at a time: another asked meanwhile is refused with 409.
    ///
    /// The engine's clustering is async and runs its k-means threads from the calling task, and
    /// reads and writes the store: it runs on the server's ``BlockingQueue`` (about 7 s for 28k
    /// tracks on 2 cores), so the cooperative pool stays free for other requests meanwhile.
    func cluster(body: Data) async throws -> HTTPResponse {
        let request = try Self.decode(ClusterRequest.self, from: body, shape: "{\"k\": 6} or {\"k\": \"auto\"}")
        let count: VibeClustering.ClusterCount
        switch request.k {
        case .auto: count = .best(among: 4...12)
        case .fixed(let k) where (2...50).contains(k): count = .fixed(k)
        case .fixed(let k): throw APIError.badRequest("k must be \"auto\" or a whole number from 2 to 50 (got \(k)).")
        }
        guard jobs.startClustering() else {
            throw APIError(
                status: 409,
                code: "busy",
                message: "The library is being clustered already; try again when that run is saved."
            )
        }
        defer { jobs.finishClustering() }
        var settings = VibeClustering.Settings(schema: .default, clusterCount: count)
        settings.seed = 42
        settings.kMeans.restartCount = 3
        settings.kMeans.maxIterations = 300
        settings.kMeans.threadCount = Parallelism.defaultThreadCount
        _ = try await withTaskExecutorPreference(reads) {
            try await answeringEngineErrors {
                try await store.findVibes(VibeRequest(settings: settings))
            }
        }
        // The new run is the current one: answered as `GET /api/vibes` shows it.
        var answer = try await reads.run { try self.vibes() }
        answer.statusCode = .created
        return answer
    }

    /// A JSON body of type `T`, or 400 naming the expected `shape`.
    static func decode<T: Decodable>(_ type: T.Type, from body: Data, shape: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw APIError.badRequest("Send JSON shaped like \(shape).")
        }
    }

    /// What `body` returns, with the engine's and the store's errors as the API's.
    func answeringEngineErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw Self.apiError(for: error)
        }
    }

    /// What `body` returns, with the engine's and the store's errors as the API's.
    func answeringEngineErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw Self.apiError(for: error)
        }
    }

    /// The API's error for an error of the engine or the store: 404 for what is not there, 409
    /// for what the library cannot do yet, 400 for a request it cannot answer; others pass.
    static func apiError(for error: any Error) -> any Error {
        switch error {
        case let error as EngineError:
            switch error {
            case .noClusteringRun:
                return APIError(
                    status: 404,
                    code: "no_run",
                    message: "The library has no vibes yet: re-cluster it (POST /api/vibes/cluster) first."
                )
            case .vibeNumberOutOfRange, .noSuchVibe, .ambiguousVibe:
                return APIError.notFound("\(error)")
            case .noTracksToCluster, .noTracksWithFeatures, .playlistWithoutFeatures:
                return APIError(status: 409, code: "no_features", message: "\(error)")
            case .playlistNotOnSpotify:
                return APIError(status: 409, code: "not_on_spotify", message: "\(error)")
            default:
                return APIError.badRequest("\(error)")
            }
        case let error as StoreError:
            if case .notFound = error { return APIError.notFound("\(error)") }
            return error
        case let error as TrackScopeError:
            return APIError.notFound("\(error)")
        case let error as RecommendationError:
            return APIError.badRequest("\(error)")
        default:
            return error
        }
    }
}

/// The long jobs a server runs one at a time.
final class ServerJobs: Sendable {
    private let isClustering = Mutex(false)

    /// Marks a clustering as running; `false` when one runs already.
    func startClustering() -> Bool {
        isClustering.withLock { running in
            guard !running else { return false }
            running = true
            return true
        }
    }

    func finishClustering() {
        isClustering.withLock { $0 = false }
    }
}

// MARK: - Bodies

/// The body of `POST /api/vibes/cluster`.
struct ClusterRequest: Decodable {
    enum Count {
        case auto
        case fixed(Int)
    }

    var k: Count

    enum CodingKeys: String, CodingKey {
        case k
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let number = try? container.decode(Int.self, forKey: .k) {
            k = .fixed(number)
        } else if try container.decode(String.self, forKey: .k).lowercased() == "auto" {
            k = .auto
        } else {
            throw DecodingError.dataCorruptedError(forKey: .k, in: container, debugDescription: "not auto")
        }
    }
}

/// `GET /api/vibes/{number}`: the vibe as `vibes N --json` shows it, its profile as bars, its
/// top genres and its members.
struct VibeBody: Encodable {
    /// A feature's mean in the vibe, and how far it lies from the library's, in standard
    /// deviations.
    struct Profile: Encodable {
        var feature: String
        var value: Double
        var zScore: Double

        enum CodingKeys: String, CodingKey {
            case feature, value
            case zScore = "z_score"
        }
    }

    struct Member: Encodable {
        var track: TrackSummary
        var distance: Double
    }

    var runID: Int64
    var vibe: VibesReport.Vibe
    var profile: [Profile]
    var topGenres: [VibeDetail.GenreCount]
    var tracks: [Member]

    init(_ detail: VibeDetail) {
        runID = detail.runID
        vibe = detail.vibe
        profile = AudioFeature.allCases.compactMap { feature in
            detail.vibe.means[feature.rawValue].map {
                Profile(feature: feature.rawValue, value: $0, zScore: detail.vibe.zScores[feature.rawValue] ?? 0)
            }
        }
        topGenres = detail.topGenres
        tracks = detail.members.map { Member(track: $0.track, distance: $0.distance) }
    }

    enum CodingKeys: String, CodingKey {
        case vibe, profile, tracks
        case runID = "run_id"
        case topGenres = "top_genres"
    }
}
