import FlyingFox
import FlyingSocks
import Foundation
import VibesTestSupport

/// A fake ReccoBeats API on `127.0.0.1`, for tests, built from its public contract
/// (`../shared/data/reccobeats/`): `GET /v1/audio-features?ids=` and `GET /v1/track?ids=`.
///
/// Like the real service it answers `{"content": [ … ]}` with the ReccoBeats UUID as `id`, the
/// Spotify link as `href`, and the ISRC; takes IDs comma-separated or repeated; honours only the
/// first 40; leaves unknown IDs out without an error; returns items in an order unrelated to the
/// request's; sends no `time_signature` or `duration_ms`; and answers errors with numeric codes.
/// Faults are injected per path: 429 with `Retry-After`, 5xx, malformed bodies, items for IDs that
/// were not asked for. Every request is recorded.
public final class FakeReccoBeats: Sendable {
    public let state: FakeReccoBeatsState
    public let port: UInt16

    /// `http://127.0.0.1:PORT/v1/`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1/")! }

    private init(state: FakeReccoBeatsState, port: UInt16) {
        self.state = state
        self.port = port
    }

    /// Starts a fake on a free port, runs `body`, and stops the fake.
    public static func withServer<T>(_ body: (FakeReccoBeats) async throws -> T) async throws -> T {
        let state = FakeReccoBeatsState()
        return try await withLoopbackServer(handler: FakeReccoBeatsHandler(state: state)) { port in
            try await body(FakeReccoBeats(state: state, port: port))
        }
    }

    /// A base URL where nothing listens: a ReccoBeats that is down.
    public static func unreachableBaseURL() throws -> URL {
        UnreachableLoopback.url(path: "v1/")
    }
}

/// A fault the fake answers with instead of the real response.
public enum FakeReccoBeatsFault: Sendable, Hashable {
    /// 429 with `Retry-After` (none when `nil`) and code 4291.
    case rateLimited(retryAfter: String?)
    /// A server error.
    case status(Int)
    /// 200 with a body that is not the documented shape.
    case malformedBody
    /// 200 with the right items plus one for a track that was not asked for.
    case foreignItem
}

/// One record of the fake catalogue.
public struct FakeReccoBeatsRecord: Sendable, Hashable {
    public var uuid: String
    public var spotifyID: String
    public var isrc: String?
    public var title: String
    public var artist: String
    public var durationMS: Int
    /// The eleven values, by their wire names.
    public var values: [String: Double]
}

/// One request the fake received.
public struct FakeReccoBeatsRequest: Sendable, Hashable {
    public var path: String
    /// The IDs asked for, in the order sent.
    public var ids: [String]
}

/// The fake's catalogue and behaviour.
public actor FakeReccoBeatsState {
    /// Spotify IDs the fake knows every track for, unless listed in ``unknownSpotifyIDs`` or
    /// cut by ``knownPercent``.
    public var knowsEveryTrack = true
    /// The share (0–100) of Spotify IDs known, chosen by a hash of the ID so it is stable.
    public var knownPercent = 100
    /// Spotify IDs the fake does not know.
    public var unknownSpotifyIDs: Set<String> = []
    /// Records reachable only by ISRC (several may share one).
    public private(set) var isrcRecords: [FakeReccoBeatsRecord] = []
    /// How long each answer takes, to let a test interrupt a run between batches.
    public var responseDelay: Duration = .zero
    public private(set) var requests: [FakeReccoBeatsRequest] = []
    private var faults: [(prefix: String, fault: FakeReccoBeatsFault, skip: Int)] = []

    init() {}

    /// Changes the fake's behaviour: `await fake.state.configure { $0.knownPercent = 95 }`.
    public func configure(_ body: @Sendable (isolated FakeReccoBeatsState) -> Void) {
        body(self)
    }

    /// Answers `times` requests whose path starts with `prefix` with `fault`, after letting the
    /// first `after` of them through.
    public func inject(
        _ fault: FakeReccoBeatsFault,
        on prefix: String = "/v1/audio-features",
        times: Int = 1,
        after: Int = 0
    ) {
        for _ in 0..<times { faults.append((prefix, fault, after)) }
    }

    /// Adds a record found by its ISRC.
    @discardableResult
    public func addISRCRecord(
        isrc: String,
        spotifyID: String,
        title: String,
        artist: String,
        durationMS: Int
    ) -> FakeReccoBeatsRecord {
        let record = FakeReccoBeatsRecord(
            uuid: Self.uuid(for: spotifyID),
            spotifyID: spotifyID,
            isrc: isrc,
            title: title,
            artist: artist,
            durationMS: durationMS,
            values: Self.values(for: spotifyID)
        )
        isrcRecords.append(record)
        return record
    }

    /// The requests whose path starts with `prefix`.
    public func requests(to prefix: String) -> [FakeReccoBeatsRequest] {
        requests.filter { $0.path.hasPrefix(prefix) }
    }

    /// Whether the fake knows `spotifyID`.
    public func knows(_ spotifyID: String) -> Bool {
        guard knowsEveryTrack, !unknownSpotifyIDs.contains(spotifyID) else {
            return isrcRecords.contains { $0.spotifyID == spotifyID }
        }
        return Int(Self.hash(spotifyID) % 100) < knownPercent
    }

    /// The values the fake serves for `spotifyID`: stable, spread over each feature's range.
    public static func values(for spotifyID: String) -> [String: Double] {
        var seed = hash(spotifyID)
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        func rounded(_ value: Double, _ digits: Double = 1000) -> Double { (value * digits).rounded() / digits }
        return [
            "acousticness": rounded(next()), "danceability": rounded(next()), "energy": rounded(next()),
            "instrumentalness": rounded(next() * next()), "liveness": rounded(next() * 0.6),
            "loudness": rounded(-30 + next() * 27), "speechiness": rounded(next() * 0.4),
            "tempo": rounded(60 + next() * 120), "valence": rounded(next()),
            "key": Double(Int(next() * 13) - 1), "mode": Double(Int(next() * 2)),
        ]
    }

    static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    static func uuid(for spotifyID: String) -> String {
        let hex = String(format: "%016llx", hash(spotifyID)) + String(format: "%016llx", hash(spotifyID + "#"))
        let c = Array(hex)
        return
            "\(String(c[0..<8]))-\(String(c[8..<12]))-4\(String(c[13..<16]))-a\(String(c[17..<20]))-\(String(c[20..<32]))"
    }

    // MARK: - Handling

    func handle(path: String, ids: [String]?) -> FakeResponse {
        requests.append(FakeReccoBeatsRequest(path: path, ids: ids ?? []))
        var fault: FakeReccoBeatsFault?
        let matching = faults.indices.filter { path.hasPrefix(faults[$0].prefix) }
        let isSkipped = matching.contains { faults[$0].skip > 0 }
        for index in matching where faults[index].skip > 0 { faults[index].skip -= 1 }
        if !isSkipped, let index = matching.first {
            fault = faults.remove(at: index).fault
        }
        switch fault {
        case .rateLimited(let retryAfter):
            return FakeResponse(
                status: 429,
                headers: retryAfter.map { ["Retry-After": $0] } ?? [:],
                body: Self.errorBody(429, code: 4291, message: "Too many requests")
            )
        case .status(let status):
            let code = status == 400 ? 4004 : status == 404 ? 4041 : nil
            return FakeResponse(
                status: status,
                headers: [:],
                body: Self.errorBody(status, code: code, message: status >= 500 ? "Internal error" : "Validation error")
            )
        case .malformedBody:
            return .json(
                200,
                Data(#"{"content": [{"href": "https://open.spotify.com/track/x", "energy": "loud"}"#.utf8)
            )
        case .foreignItem, nil:
            break
        }
        guard path == "/v1/audio-features" || path == "/v1/track" else {
            return .json(404, Self.errorBody(404, code: 4042, message: "No endpoint \(path)"))
        }
        guard let ids, !ids.isEmpty else {
            return .json(400, Self.errorBody(400, code: 4001, message: "Required parameter 'ids' is not present"))
        }
        var items: [[String: Any]] = []
        for id in ids.prefix(40) {  // extras are dropped silently, as the real service does
            if id.count == 22, knows(id) {
                let record =
                    isrcRecords.first { $0.spotifyID == id }
                    ?? FakeReccoBeatsRecord(
                        uuid: Self.uuid(for: id),
                        spotifyID: id,
                        isrc: nil,
                        title: "Track \(id)",
                        artist: "Artist",
                        durationMS: 200_000,
                        values: Self.values(for: id)
                    )
                items.append(path == "/v1/track" ? Self.trackItem(record) : Self.featuresItem(record))
            } else if let record = isrcRecords.first(where: { $0.uuid == id }), path == "/v1/track" {
                items.append(Self.trackItem(record))
            } else if id.count == 12 {
                for record in isrcRecords where record.isrc == id {
                    items.append(path == "/v1/track" ? Self.trackItem(record) : Self.featuresItem(record))
                }
            }
        }
        if fault == .foreignItem {
            let stranger = FakeReccoBeatsRecord(
                uuid: Self.uuid(for: "stranger"),
                spotifyID: "7ouMYWpwJ422jRcDASZB7P",
                isrc: "GBUM71029604",
                title: "Stranger",
                artist: "Nobody",
                durationMS: 1,
                values: Self.values(for: "stranger")
            )
            items.append(Self.featuresItem(stranger))
        }
        // The service documents no order: answer in reverse so that no client can pair by position.
        return .json(200, Self.encode(["content": Array(items.reversed())]))
    }

    static func featuresItem(_ record: FakeReccoBeatsRecord) -> [String: Any] {
        var item: [String: Any] = [
            "id": record.uuid, "href": "https://open.spotify.com/track/\(record.spotifyID)",
        ]
        if let isrc = record.isrc { item["isrc"] = isrc }
        for (name, value) in record.values {
            item[name] = name == "key" || name == "mode" ? Int(value) as Any : value as Any
        }
        return item
    }

    static func trackItem(_ record: FakeReccoBeatsRecord) -> [String: Any] {
        [
            "id": record.uuid, "trackTitle": record.title,
            "artists": [
                ["id": uuid(for: record.artist), "name": record.artist, "href": "https://open.spotify.com/artist/x"]
            ],
            "durationMs": record.durationMS, "isrc": record.isrc ?? NSNull(), "ean": NSNull(), "upc": NSNull(),
            "href": "https://open.spotify.com/track/\(record.spotifyID)", "availableCountries": "DE,US",
            "popularity": 50,
        ]
    }

    static func errorBody(_ status: Int, code: Int?, message: String) -> Data {
        var body: [String: Any] = [
            "timestamp": "2026-01-01T00:00:00.000+00:00", "status": status, "message": message,
        ]
        if let code { body["code"] = code }
        return encode(body)
    }

    static func encode(_ object: Any) -> Data {
        try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}

/// Routes every request to the state actor.
private struct FakeReccoBeatsHandler: HTTPHandler {
    let state: FakeReccoBeatsState

    func handleRequest(_ request: FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
        // `ids` comes comma-separated or repeated (`?ids=a&ids=b`); both are honoured.
        let values = request.query.filter { $0.name == "ids" }.map(\.value)
        let ids = values.isEmpty ? nil : values.flatMap { $0.split(separator: ",").map(String.init) }
        let delay = await state.responseDelay
        if delay > .zero { try await Task.sleep(for: delay) }
        let answer = await state.handle(path: request.path, ids: ids)
        var headers = HTTPHeaders()
        for (name, value) in answer.headers { headers[HTTPHeader(name)] = value }
        headers[.contentType] = "application/json"
        return FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(answer.status, phrase: "Fake"),
            headers: headers,
            body: answer.body
        )
    }
}
