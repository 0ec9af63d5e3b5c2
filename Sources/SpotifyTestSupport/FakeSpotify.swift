import Crypto
import FlyingFox
import FlyingSocks
import Foundation
import VibesTestSupport

/// A fake Spotify (accounts service and Web API) on `127.0.0.1`, for tests.
///
/// It serves responses built from the fixtures in `Fixtures/spotify/` (copied from Spotify's
/// reference examples): the shapes are Spotify's, the IDs and counts are generated so paging runs
/// over many pages. Faults are injected per path prefix: 429 with or without `Retry-After`, 5xx,
/// dropped connections, malformed JSON and expired tokens. Every request is recorded.
///
/// It keeps the rules Spotify applies to a development-mode app in 2026: `search` answers
/// `400 Invalid limit` above ``FakeSpotifyState/searchLimitMaximum`` (10), every access token
/// carries the scopes it was granted and an endpoint that needs another answers
/// `403 Insufficient client scope`, and a developer quota (``FakeSpotifyState/quota``) ends in a
/// 429 whose body says `"reason": "QUOTA_EXCEEDED"`, with a `Retry-After` of hours. Playlists hold
/// tracks, local files, episodes and removed tracks, each with its `added_at` and `added_by`, and
/// the reorder operation (`range_start`, `insert_before`, `range_length`, `snapshot_id`) moves
/// items as Spotify does, positions read against the snapshot named.
///
/// ```swift
/// try await FakeSpotify.withServer { fake in
///     await fake.state.setSavedTrackCount(120)
///     let client = SpotifyClient(tokens: tokens, baseURL: fake.apiBaseURL)
/// }
/// ```
public final class FakeSpotify: Sendable {
    /// The library, tokens, faults and request log.
    public let state: FakeSpotifyState
    /// The port the server listens on.
    public let port: UInt16

    /// `http://127.0.0.1:PORT/v1/`.
    public var apiBaseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1/")! }
    /// `http://127.0.0.1:PORT/accounts/`: `authorize` and `api/token` live below it.
    public var accountsBaseURL: URL { URL(string: "http://127.0.0.1:\(port)/accounts/")! }

    private init(state: FakeSpotifyState, port: UInt16) {
        self.state = state
        self.port = port
    }

    /// Starts a fake on a free port, runs `body`, and stops the fake.
    public static func withServer<T>(_ body: (FakeSpotify) async throws -> T) async throws -> T {
        let state = FakeSpotifyState()
        return try await withLoopbackServer(handler: FakeSpotifyHandler(state: state)) { port in
            await state.setBaseURL("http://127.0.0.1:\(port)")
            return try await body(FakeSpotify(state: state, port: port))
        }
    }
}

/// A fault the fake answers with instead of the real response.
public enum FakeSpotifyFault: Sendable, Hashable {
    /// 429 with `Retry-After` (or none when `nil`) and Spotify's "API rate limit exceeded" body,
    /// or an empty body when `emptyBody`.
    case rateLimited(retryAfter: String?, emptyBody: Bool = false)
    /// An error status with Spotify's envelope (and no `message` when `message` is `nil`).
    case status(Int, message: String?)
    /// The connection closes after part of the body.
    case dropConnection
    /// The request is carried out, then the connection closes before the answer is whole: a write
    /// whose client cannot know it landed.
    case dropConnectionAfterApplying
    /// 200 with a body that is not valid JSON.
    case malformedJSON
    /// Every access token expires before the request is handled (so it answers 401).
    case expireAccessTokens
}

/// One request the fake received.
public struct FakeSpotifyRequest: Sendable, Hashable {
    public var method: String
    public var path: String
    public var query: [String: String]
    public var authorization: String?
    public var body: Data
}

/// The fake's data and behaviour. Tests configure it before and inspect it after.
public actor FakeSpotifyState {
    // MARK: Library

    /// How many saved tracks `/me/tracks` pages through.
    public private(set) var savedTrackCount = 0
    /// Playlists by ID, in list order.
    public private(set) var playlists: [FakePlaylist] = []
    /// Plays served by recently-played, newest first.
    public private(set) var playCount = 2
    /// Whether `/audio-features` answers 403 with a body without `message`, as for new apps.
    public var audioFeaturesForbidden = false
    /// Whether `/playlists/{id}/items` answers 404, so clients must fall back to `/tracks`.
    public var itemsPathMissing = false
    /// Whether batch `/tracks?ids=` answers 403.
    public var batchTracksForbidden = false
    /// Whether the authorize endpoint redirects with `error=access_denied`.
    public var deniesAuthorization = false
    /// Whether currently-playing answers 204.
    public var nothingPlaying = true
    /// The lifetime of issued access tokens, in seconds.
    public var tokenLifetime = 3600

    // MARK: 2026 development-mode rules

    /// The largest `limit` `/search` accepts: 10 for development-mode apps since February 2026
    /// (50 for apps with extended quota). Above it the answer is `400 Invalid limit`.
    public var searchLimitMaximum = 10
    /// How many tracks a track search finds.
    public var searchResultCount = 1
    /// How many Web API requests the developer account may make before Spotify answers 429
    /// `QUOTA_EXCEEDED`; `nil` for no quota.
    public var quota: Int?
    /// The `Retry-After` of a `QUOTA_EXCEEDED` answer, in seconds: hours, not seconds.
    public var quotaRetryAfter = 4 * 3600
    /// The Web API requests counted against ``quota`` so far.
    public private(set) var quotaUsed = 0
    /// Whether endpoints check the access token's scopes.
    public var enforcesScopes = true
    /// Every scope: what tokens a test issues directly carry unless it names others.
    public static let allScopes: Set<String> = [
        "user-read-private", "user-read-email", "user-library-read", "user-top-read", "user-read-recently-played",
        "user-read-currently-playing", "user-read-playback-state", "user-modify-playback-state",
        "playlist-read-private", "playlist-read-collaborative", "playlist-modify-public", "playlist-modify-private",
    ]

    // MARK: Player

    /// The devices `/me/player/devices` lists; the first is active, as when Spotify is open.
    public var devices: [FakeDevice] = [
        FakeDevice(id: "d-laptop", name: "Fake Laptop", type: "Computer", isActive: true)
    ]
    /// Whether the account is Premium; player commands answer 403 `PREMIUM_REQUIRED` when not.
    public var isPremium = true
    /// What the player does, changed by the player commands.
    public private(set) var player = FakePlayer()

    // MARK: Tokens and log

    public private(set) var validAccessTokens: Set<String> = []
    public private(set) var validRefreshTokens: Set<String> = []
    /// Every access and refresh token issued, for leak checks.
    public private(set) var issuedTokens: [String] = []
    public private(set) var requests: [FakeSpotifyRequest] = []
    private var codes: [String: (challenge: String?, redirectURI: String, scopes: Set<String>)] = [:]
    /// The scopes each access and refresh token carries.
    private var scopesByToken: [String: Set<String>] = [:]
    /// The items of every snapshot a playlist had, by snapshot ID (item serials, in order), so a
    /// reorder can name an older snapshot as Spotify allows.
    private var snapshotItems: [String: [Int]] = [:]
    private var itemSerial = 0
    /// The fake's clock for `added_at` of items written through the API.
    private var writeClock = 1_750_000_000
    private var faults: [(prefix: String, fault: FakeSpotifyFault, skip: Int)] = []
    /// Saved tracks added after the generated ones, served first (newest).
    public private(set) var newerSavedTrackCount = 0
    private var counter = 0
    private var playlistSerial = 0
    private var baseURL = ""
    /// Items added through the API, by playlist ID, in order.
    public private(set) var writtenItems: [String: [String]] = [:]
    /// How many reorder operations moved items.
    public private(set) var reorders = 0

    init() {}

    func setBaseURL(_ url: String) { baseURL = url }

    // MARK: - Configuration

    public func setSavedTrackCount(_ count: Int) { savedTrackCount = count }

    /// Saves `count` more tracks, newer than all others, so they come first in `/me/tracks`.
    public func saveNewTracks(_ count: Int) {
        newerSavedTrackCount += count
        savedTrackCount += count
    }
    public func setPlayCount(_ count: Int) { playCount = count }
    /// Changes the fake's behaviour: `await fake.state.configure { $0.audioFeaturesForbidden = true }`.
    public func configure(_ body: @Sendable (isolated FakeSpotifyState) -> Void) {
        body(self)
    }

    /// Adds a playlist with `trackCount` generated tracks, plus optional special entries.
    @discardableResult
    public func addPlaylist(
        name: String,
        trackCount: Int,
        localFiles: Int = 0,
        episodes: Int = 0,
        removedTracks: Int = 0,
        owner: String = "wizzler",
        adders: [String] = ["wizzler"]
    ) -> FakePlaylist {
        playlistSerial += 1
        let id = Self.makeID(prefix: "P", playlistSerial)
        var entries: [FakePlaylist.Entry] = (0..<trackCount).map { .track(index: 10_000 * playlistSerial + $0) }
        entries += Array(repeating: .local, count: localFiles)
        entries += Array(repeating: .episode, count: episodes)
        entries += Array(repeating: .removed, count: removedTracks)
        return addPlaylist(name: name, entries: entries, owner: owner, adders: adders, id: id)
    }

    /// Adds a playlist holding `entries` in that order; item `i` was added on day `i` after
    /// 2020-01-01 by `adders[i % adders.count]`.
    @discardableResult
    public func addPlaylist(
        name: String,
        entries: [FakePlaylist.Entry],
        owner: String = "wizzler",
        adders: [String] = ["wizzler"]
    ) -> FakePlaylist {
        playlistSerial += 1
        return addPlaylist(
            name: name,
            entries: entries,
            owner: owner,
            adders: adders,
            id: Self.makeID(prefix: "P", playlistSerial)
        )
    }

    private func addPlaylist(
        name: String,
        entries: [FakePlaylist.Entry],
        owner: String,
        adders: [String],
        id: String
    ) -> FakePlaylist {
        let items = entries.enumerated().map { position, entry in
            makeItem(
                entry,
                addedAt: Date(timeIntervalSince1970: 1_577_836_800 + Double(position) * 86_400).formatted(.iso8601),
                addedBy: adders.isEmpty ? owner : adders[position % adders.count]
            )
        }
        let playlist = FakePlaylist(id: id, name: name, owner: owner, snapshotID: "snap-\(id)-1", items: items)
        playlists.append(playlist)
        snapshotItems[playlist.snapshotID] = items.map(\.serial)
        return playlist
    }

    private func makeItem(_ entry: FakePlaylist.Entry, addedAt: String, addedBy: String) -> FakePlaylist.Item {
        itemSerial += 1
        return FakePlaylist.Item(entry: entry, addedAt: addedAt, addedBy: addedBy, serial: itemSerial)
    }

    /// Gives playlist `index` a new snapshot after a change of its items.
    private func bumpSnapshot(_ index: Int) {
        playlists[index].version += 1
        playlists[index].snapshotID = "snap-\(playlists[index].id)-\(playlists[index].version)"
        snapshotItems[playlists[index].snapshotID] = playlists[index].items.map(\.serial)
    }

    /// Changes a playlist's contents (and snapshot): appends `count` tracks.
    public func appendTracks(_ count: Int, toPlaylist id: String) {
        guard let index = playlists.firstIndex(where: { $0.id == id }) else { return }
        let start = playlists[index].items.count
        for offset in 0..<count {
            writeClock += 60
            playlists[index].items.append(
                makeItem(
                    .track(index: 10_000 * (index + 1) + start + offset),
                    addedAt: Date(timeIntervalSince1970: Double(writeClock)).formatted(.iso8601),
                    addedBy: "someone-else"
                )
            )
        }
        bumpSnapshot(index)
    }

    /// The playlist's items now, as the API lists them: URI (`null` for a removed track),
    /// `added_at` and `added_by`.
    public func items(ofPlaylist id: String) -> [FakePlaylist.ListedItem] {
        guard let playlist = playlists.first(where: { $0.id == id }) else { return [] }
        return playlist.items.map {
            FakePlaylist.ListedItem(uri: uri(of: $0), addedAt: $0.addedAt, addedBy: $0.addedBy)
        }
    }

    /// The URI the API gives an item: tracks, episodes and local files each their own.
    func uri(of item: FakePlaylist.Item) -> String? {
        switch item.entry {
        case .track(let index): "spotify:track:" + Self.makeID(prefix: "L", index)
        case .local: "spotify:local:Eminem::Killshot+\(item.serial):253"
        case .episode: "spotify:episode:" + Self.makeID(prefix: "E", item.serial)
        case .removed: nil
        case .written(let uri): uri
        }
    }

    /// Answers `times` requests whose path starts with `prefix` (such as `/v1/me/tracks`) with
    /// `fault`, after letting the first `after` of them through.
    public func inject(_ fault: FakeSpotifyFault, on prefix: String, times: Int = 1, after: Int = 0) {
        for _ in 0..<times { faults.append((prefix, fault, after)) }
    }

    /// Removes every injected fault that has not fired.
    public func clearFaults() { faults.removeAll() }

    /// Deletes a playlist, as the user might in the Spotify app.
    public func deletePlaylist(_ id: String) {
        playlists.removeAll { $0.id == id }
    }

    /// Revokes every refresh token: the next refresh answers `invalid_grant`.
    public func revokeRefreshTokens() { validRefreshTokens.removeAll() }

    /// Expires every access token: the next API request answers 401.
    public func expireAccessTokens() { validAccessTokens.removeAll() }

    /// Issues a session directly (as if the user had signed in), returning its tokens. The tokens
    /// carry `scopes`, every scope by default.
    public func issueTokens(scopes: Set<String> = FakeSpotifyState.allScopes) -> (access: String, refresh: String) {
        (issueAccessToken(scopes: scopes), issueRefreshToken(scopes: scopes))
    }

    /// Sets the quota: `limit` more Web API requests from now (`nil`: none).
    public func setQuota(_ limit: Int?) {
        quota = limit
        quotaUsed = 0
    }

    /// The requests whose path starts with `prefix`.
    public func requests(to prefix: String) -> [FakeSpotifyRequest] {
        requests.filter { $0.path.hasPrefix(prefix) }
    }

    /// The ISRC the fake gives the track with generated ID `id`.
    public static func isrc(forTrackID id: String) -> String {
        "QZFK" + String(id.prefix(1)) + String(id.suffix(7))
    }

    /// The generated ID of saved track `index` (0 is the newest).
    public static func savedTrackID(_ index: Int) -> String { makeID(prefix: "S", index) }

    static func makeID(prefix: String, _ number: Int) -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: 21 - digits.count) + digits
    }

    private func issueAccessToken(scopes: Set<String>) -> String {
        counter += 1
        let token = "BQ-fake-access-\(counter)-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        validAccessTokens.insert(token)
        issuedTokens.append(token)
        scopesByToken[token] = scopes
        return token
    }

    private func issueRefreshToken(scopes: Set<String>) -> String {
        counter += 1
        let token = "AQ-fake-refresh-\(counter)-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        validRefreshTokens.insert(token)
        issuedTokens.append(token)
        scopesByToken[token] = scopes
        return token
    }

    // MARK: - Handling

    func handle(_ request: FakeSpotifyRequest) -> FakeResponse {
        requests.append(request)
        let matching = faults.indices.filter { request.path.hasPrefix(faults[$0].prefix) }
        let isSkipped = matching.contains { faults[$0].skip > 0 }
        for index in matching where faults[index].skip > 0 { faults[index].skip -= 1 }
        var dropsAfterApplying = false
        if !isSkipped, let index = matching.first {
            let fault = faults.remove(at: index).fault
            switch fault {
            case .dropConnectionAfterApplying:
                dropsAfterApplying = true
            case .rateLimited(let retryAfter, let emptyBody):
                let body =
                    emptyBody ? Data() : Data(#"{"error":{"status":429,"message":"API rate limit exceeded"}}"#.utf8)
                return FakeResponse(status: 429, headers: retryAfter.map { ["Retry-After": $0] } ?? [:], body: body)
            case .status(let status, let message):
                return .error(status, message: message)
            case .dropConnection:
                return FakeResponse(status: 200, headers: [:], body: Data(#"{"items": [{"added_at""#.utf8), drops: true)
            case .malformedJSON:
                return FakeResponse(
                    status: 200,
                    headers: [:],
                    body: Data(#"{"items": [{"track": {"id": "x", "name": "access_token=leaky", "#.utf8)
                )
            case .expireAccessTokens:
                validAccessTokens.removeAll()
            }
        }
        if dropsAfterApplying {
            var response = handleUnfaulted(request)
            response.drops = true
            return response
        }
        return handleUnfaulted(request)
    }

    private func handleUnfaulted(_ request: FakeSpotifyRequest) -> FakeResponse {
        if request.path.hasPrefix("/accounts/") { return handleAccounts(request) }
        guard request.path.hasPrefix("/v1/") else { return .error(404, message: "Not found") }
        guard let auth = request.authorization, auth.hasPrefix("Bearer "),
            validAccessTokens.contains(String(auth.dropFirst(7)))
        else {
            return .error(401, message: "Missing/invalid/expired access token")
        }
        if let quota {
            guard quotaUsed < quota else {
                let body: [String: Any] = [
                    "error": [
                        "status": 429,
                        "message": "The developer account's API quota is exhausted",
                        "reason": "QUOTA_EXCEEDED",
                    ]
                ]
                return FakeResponse(
                    status: 429,
                    headers: [
                        "Retry-After": String(quotaRetryAfter), "Content-Type": "application/json; charset=utf-8",
                    ],
                    body: Self.encode(body)
                )
            }
            quotaUsed += 1
        }
        if enforcesScopes, let needed = Self.requiredScopes(method: request.method, path: request.path) {
            let granted = scopesByToken[String(auth.dropFirst(7))] ?? []
            if granted.isDisjoint(with: needed) { return .error(403, message: "Insufficient client scope") }
        }
        return handleAPI(request)
    }

    /// The scopes an endpoint needs (any one of them), as Spotify documents them; `nil` for none.
    static func requiredScopes(method: String, path: String) -> Set<String>? {
        let parts = path.dropFirst(4).split(separator: "/").map(String.init)
        switch (method, parts.first ?? "", parts.count) {
        case ("GET", "me", 2) where parts[1] == "tracks": return ["user-library-read"]
        case ("GET", "me", 3) where parts[1] == "top": return ["user-top-read"]
        case (_, "me", 3) where parts[1] == "player":
            switch parts[2] {
            case "recently-played": return ["user-read-recently-played"]
            case "currently-playing": return ["user-read-currently-playing", "user-read-playback-state"]
            case "devices": return ["user-read-playback-state"]
            default: return ["user-modify-playback-state"]
            }
        case ("POST", "me", 2) where parts[1] == "playlists":
            return ["playlist-modify-private", "playlist-modify-public"]
        case ("POST", "playlists", 3), ("PUT", "playlists", 3), ("DELETE", "playlists", 3):
            return ["playlist-modify-private", "playlist-modify-public"]
        default: return nil
        }
    }

    private func handleAccounts(_ request: FakeSpotifyRequest) -> FakeResponse {
        switch request.path {
        case "/accounts/authorize":
            guard let redirect = request.query["redirect_uri"], let state = request.query["state"] else {
                return .error(400, message: "missing redirect_uri")
            }
            var components = URLComponents(string: redirect)!
            if deniesAuthorization {
                components.queryItems = [
                    URLQueryItem(name: "error", value: "access_denied"), URLQueryItem(name: "state", value: state),
                ]
            } else {
                counter += 1
                let code = "AQC-fake-code-\(counter)"
                let scopes = Set((request.query["scope"] ?? "").split(separator: " ").map(String.init))
                codes[code] = (request.query["code_challenge"], redirect, scopes)
                components.queryItems = [
                    URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: state),
                ]
            }
            return FakeResponse(status: 302, headers: ["Location": components.url!.absoluteString], body: Data())
        case "/accounts/api/token":
            var form = URLComponents()
            form.percentEncodedQuery = String(decoding: request.body, as: UTF8.self)
            let fields = Dictionary(
                (form.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                uniquingKeysWith: { first, _ in first }
            )
            let hasSecret = request.authorization?.hasPrefix("Basic ") ?? false
            guard hasSecret || fields["client_id"] != nil else {
                return .json(400, Fixtures.data("spotify/token-error-invalid-client.json"))
            }
            switch fields["grant_type"] {
            case "authorization_code":
                guard let code = fields["code"], let issued = codes.removeValue(forKey: code),
                    issued.redirectURI == fields["redirect_uri"]
                else {
                    return .json(
                        400,
                        Data(#"{"error":"invalid_grant","error_description":"Invalid authorization code"}"#.utf8)
                    )
                }
                if let challenge = issued.challenge {
                    let verifier = fields["code_verifier"] ?? ""
                    guard Self.s256(verifier) == challenge else {
                        return .json(
                            400,
                            Data(#"{"error":"invalid_grant","error_description":"code_verifier was incorrect"}"#.utf8)
                        )
                    }
                }
                return .json(
                    200,
                    tokenBody(fixture: "token-authorization-code.json", refresh: true, scopes: issued.scopes)
                )
            case "refresh_token":
                guard let token = fields["refresh_token"], validRefreshTokens.contains(token) else {
                    return .json(400, Fixtures.data("spotify/token-error-invalid-grant-revoked.json"))
                }
                validRefreshTokens.remove(token)
                return .json(
                    200,
                    tokenBody(fixture: "token-pkce-refresh.json", refresh: true, scopes: scopesByToken[token] ?? [])
                )
            case "client_credentials":
                guard hasSecret else { return .json(400, Fixtures.data("spotify/token-error-invalid-client.json")) }
                return .json(200, tokenBody(fixture: "token-client-credentials.json", refresh: false, scopes: []))
            default:
                return .json(400, Data(#"{"error":"unsupported_grant_type"}"#.utf8))
            }
        default:
            return .error(404, message: "Not found")
        }
    }

    private func tokenBody(fixture: String, refresh: Bool, scopes: Set<String>) -> Data {
        var object = Self.object(fixture)
        object["access_token"] = issueAccessToken(scopes: scopes)
        object["expires_in"] = tokenLifetime
        object["scope"] = scopes.sorted().joined(separator: " ")
        if refresh { object["refresh_token"] = issueRefreshToken(scopes: scopes) }
        return Self.encode(object)
    }

    static func s256(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private func handleAPI(_ request: FakeSpotifyRequest) -> FakeResponse {
        let parts = request.path.dropFirst(4).split(separator: "/").map(String.init)
        let offset = Int(request.query["offset"] ?? "0") ?? 0
        let limit = Int(request.query["limit"] ?? "20") ?? 20
        let method = request.method
        /// The path segments matching `*` in `pattern`, or `nil` when the path does not match.
        func match(_ pattern: String) -> [String]? {
            let expected = pattern.split(separator: "/").map(String.init)
            guard expected.count == parts.count else { return nil }
            var wildcards: [String] = []
            for (want, have) in zip(expected, parts) {
                if want == "*" { wildcards.append(have) } else if want != have { return nil }
            }
            return wildcards
        }
        if method == "GET", match("me") != nil {
            return .json(200, Fixtures.data("spotify/get-me.json"))
        }
        if method == "GET", match("me/tracks") != nil {
            let items = (offset..<max(offset, min(offset + limit, savedTrackCount))).map(savedItem)
            return .json(200, page(items, path: "/v1/me/tracks", offset: offset, limit: limit, total: savedTrackCount))
        }
        if method == "GET", match("me/playlists") != nil {
            let slice = playlists.dropFirst(offset).prefix(limit).map(playlistObject)
            return .json(
                200,
                page(Array(slice), path: "/v1/me/playlists", offset: offset, limit: limit, total: playlists.count)
            )
        }
        if method == "POST", match("me/playlists") != nil {
            let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] ?? [:]
            let created = addPlaylist(name: body["name"] as? String ?? "?", trackCount: 0)
            return .json(201, Self.encode(playlistObject(created)))
        }
        if method == "GET", let wildcards = match("playlists/*") {
            guard let playlist = playlists.first(where: { $0.id == wildcards[0] }) else {
                return .error(404, message: "Not found")
            }
            return .json(200, Self.encode(playlistObject(playlist)))
        }
        if let wildcards = match("playlists/*/*"), wildcards[1] == "items" || wildcards[1] == "tracks" {
            let (id, kind) = (wildcards[0], wildcards[1])
            if kind == "items" && itemsPathMissing { return .error(404, message: "Not found") }
            guard let index = playlists.firstIndex(where: { $0.id == id }) else {
                return .error(404, message: "Not found")
            }
            if method == "GET" {
                let playlist = playlists[index]
                if playlist.owner != "wizzler" { return .error(403, message: "Forbidden") }
                let items = playlist.items.dropFirst(offset).prefix(limit).map(playlistItem)
                return .json(
                    200,
                    page(Array(items), path: request.path, offset: offset, limit: limit, total: playlist.items.count)
                )
            }
            let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] ?? [:]
            if method == "PUT", body["range_start"] != nil || body["insert_before"] != nil {
                if body["uris"] != nil {
                    return .error(400, message: "Replace and reorder are mutually exclusive")
                }
                return reorder(playlistAt: index, body: body)
            }
            if method == "DELETE" {
                let removed = (body["tracks"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }
                if removed.count > 100 { return .error(400, message: "Too many tracks requested") }
                let gone = Set(removed)
                playlists[index].items.removeAll { item in uri(of: item).map(gone.contains) ?? false }
                bumpSnapshot(index)
                return .json(200, Self.encode(["snapshot_id": playlists[index].snapshotID]))
            }
            let uris = body["uris"] as? [String] ?? []
            if uris.count > 100 { return .error(400, message: "Too many tracks requested") }
            if method == "PUT" {
                writtenItems[id] = []
                playlists[index].items = []
            }
            writtenItems[id, default: []] += uris
            for uri in uris {
                writeClock += 1
                playlists[index].items.append(
                    makeItem(
                        .written(uri: uri),
                        addedAt: Date(timeIntervalSince1970: Double(writeClock)).formatted(.iso8601),
                        addedBy: "wizzler"
                    )
                )
            }
            bumpSnapshot(index)
            return .json(method == "POST" ? 201 : 200, Self.encode(["snapshot_id": playlists[index].snapshotID]))
        }
        if method == "GET", let wildcards = match("me/top/*") {
            let total = 120
            let items: [Any] = (offset..<max(offset, min(offset + limit, total))).map { index in
                wildcards[0] == "artists"
                    ? artistObject(index) : trackObject(id: Self.makeID(prefix: "U", index), name: "Top \(index)")
            }
            return .json(200, page(items, path: request.path, offset: offset, limit: limit, total: total))
        }
        if method == "GET", match("me/player/recently-played") != nil {
            return .json(200, recentlyPlayed(after: Int64(request.query["after"] ?? ""), limit: limit))
        }
        if method == "GET", match("me/player/currently-playing") != nil {
            if nothingPlaying { return FakeResponse(status: 204, headers: [:], body: Data()) }
            let item = trackObject(id: Self.makeID(prefix: "C", 1), name: "Now")
            return .json(200, Self.encode(["is_playing": true, "progress_ms": 1000, "item": item]))
        }
        if method == "GET", match("audio-features") != nil {
            if audioFeaturesForbidden {
                return .json(403, Data("{\n  \"error\" : {\n    \"status\" : 403\n  }\n}".utf8))
            }
            let ids = (request.query["ids"] ?? "").split(separator: ",").map(String.init)
            if ids.count > 100 { return .error(400, message: "Too many ids requested") }
            let template = (Self.object("get-audio-features-several.json")["audio_features"] as! [[String: Any]])[0]
            let entries: [Any] = ids.map { id in
                if id.hasPrefix("N") { return NSNull() }
                var entry = template
                entry["id"] = id
                entry["uri"] = "spotify:track:\(id)"
                return entry
            }
            return .json(200, Self.encode(["audio_features": entries]))
        }
        if method == "GET", match("tracks") != nil {
            if batchTracksForbidden { return .error(403, message: "Forbidden") }
            let ids = (request.query["ids"] ?? "").split(separator: ",").map(String.init)
            return .json(200, Self.encode(["tracks": ids.map { trackObject(id: $0, name: "Track \($0)") }]))
        }
        if method == "GET", let wildcards = match("tracks/*") {
            if wildcards[0].hasPrefix("N") { return .error(404, message: "Non existing id") }
            return .json(200, Self.encode(trackObject(id: wildcards[0], name: "Track \(wildcards[0])")))
        }
        if method == "GET", match("artists") != nil {
            let ids = (request.query["ids"] ?? "").split(separator: ",").map(String.init)
            if ids.count > 50 { return .error(400, message: "Too many ids requested") }
            let templates = Self.object("get-artists-several.json")["artists"] as! [[String: Any]]
            let artists: [Any] = ids.enumerated().map { index, id in
                var artist = templates[index % templates.count]
                artist["id"] = id
                return artist
            }
            return .json(200, Self.encode(["artists": artists]))
        }
        if method == "GET", match("search") != nil {
            guard let limit = Int(request.query["limit"] ?? "10"), (1...searchLimitMaximum).contains(limit) else {
                return .error(400, message: "Invalid limit")
            }
            guard (0...1000).contains(offset) else { return .error(400, message: "Invalid offset") }
            let query = request.query["q"] ?? ""
            let type = request.query["type"] ?? "track"
            let items: [Any]
            switch type {
            case "artist": items = [artistObject(1)]
            case "album":
                items = [
                    (Self.object("get-me-tracks.json")["items"] as! [[String: Any]])[0]["track"].flatMap {
                        ($0 as! [String: Any])["album"]
                    } as Any
                ]
            case "playlist":
                items = [
                    playlistObject(
                        FakePlaylist(
                            id: Self.makeID(prefix: "Y", 1),
                            name: "Found \(query)",
                            owner: "spotify",
                            snapshotID: "s",
                            items: []
                        )
                    )
                ]
            default:
                // `searchResultCount` hits named after the query, paged by offset and limit.
                items = (offset..<max(offset, min(offset + limit, searchResultCount))).map {
                    trackObject(id: Self.makeID(prefix: "Q", $0 + 1), name: $0 == 0 ? query : "\(query) \($0 + 1)")
                }
            }
            let total = type == "track" ? searchResultCount : 1
            let found = page(items, path: "/v1/search", offset: offset, limit: limit, total: total)
            return .json(200, Self.encode([type + "s": try! JSONSerialization.jsonObject(with: found)]))
        }
        if method == "GET", match("me/player/devices") != nil {
            return .json(200, Self.encode(["devices": devices.map(\.object)]))
        }
        if parts.count == 3, parts[0] == "me", parts[1] == "player",
            ["play", "pause", "next", "previous", "seek", "shuffle"].contains(parts[2])
        {
            return player(command: parts[2], request: request)
        }
        return .error(404, message: "Service not found")
    }

    // MARK: - Player

    /// A player command as Spotify answers it: 403 `PREMIUM_REQUIRED` for a free account, 404
    /// `NO_ACTIVE_DEVICE` when no device is named or active, 404 for an unknown device, else 204.
    private func player(command: String, request: FakeSpotifyRequest) -> FakeResponse {
        let method = request.method
        guard method == (["next", "previous"].contains(command) ? "POST" : "PUT") else {
            return .error(405, message: "Method not allowed")
        }
        func refusal(_ status: Int, _ message: String, _ reason: String) -> FakeResponse {
            .json(status, Self.encode(["error": ["status": status, "message": message, "reason": reason]]))
        }
        guard isPremium else { return refusal(403, "Player command failed: Premium required", "PREMIUM_REQUIRED") }
        let target: Int
        if let id = request.query["device_id"] {
            guard let index = devices.firstIndex(where: { $0.id == id }) else {
                return .error(404, message: "Device not found")
            }
            target = index
        } else {
            guard let index = devices.firstIndex(where: \.isActive) else {
                return refusal(404, "Player command failed: No active device found", "NO_ACTIVE_DEVICE")
            }
            target = index
        }
        for index in devices.indices { devices[index].isActive = index == target }
        player.deviceID = devices[target].id
        switch command {
        case "play":
            let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
            if let context = body?["context_uri"] as? String {
                player.contextURI = context
                player.uris = []
                player.trackIndex = 0
            } else if let uris = body?["uris"] as? [String] {
                player.contextURI = nil
                player.uris = uris
                player.trackIndex = 0
            }
            player.isPlaying = true
        case "pause": player.isPlaying = false
        case "next": player.trackIndex += 1
        case "previous": player.trackIndex = max(0, player.trackIndex - 1)
        case "seek":
            guard let position = Int(request.query["position_ms"] ?? ""), position >= 0 else {
                return .error(400, message: "Bad position_ms")
            }
            player.positionMS = position
        case "shuffle":
            guard let state = request.query["state"], ["true", "false"].contains(state) else {
                return .error(400, message: "Bad state")
            }
            player.isShuffled = state == "true"
        default: break
        }
        return FakeResponse(status: 204, headers: [:], body: Data())
    }

    // MARK: - Bodies from the fixtures

    private func page(_ items: [Any], path: String, offset: Int, limit: Int, total: Int) -> Data {
        let next: Any = offset + limit < total ? "\(baseURL)\(path)?offset=\(offset + limit)&limit=\(limit)" : NSNull()
        return Self.encode([
            "href": "\(baseURL)\(path)?offset=\(offset)&limit=\(limit)", "items": items, "limit": limit,
            "next": next, "offset": offset, "previous": NSNull(), "total": total,
        ])
    }

    private func trackObject(id: String, name: String) -> [String: Any] {
        var track = (Self.object("get-me-tracks.json")["items"] as! [[String: Any]])[0]["track"] as! [String: Any]
        track["id"] = id
        track["name"] = name
        track["uri"] = "spotify:track:\(id)"
        // Each track its own ISRC (the fixture's country and registrant, the ID's kind and number).
        track["external_ids"] = ["isrc": Self.isrc(forTrackID: id)]
        return track
    }

    private func savedItem(_ position: Int) -> [String: Any] {
        let isNewer = position < newerSavedTrackCount
        let index = isNewer ? position : position - newerSavedTrackCount
        let id = isNewer ? Self.makeID(prefix: "V", newerSavedTrackCount - position) : Self.savedTrackID(index)
        let date = Date(
            timeIntervalSince1970: isNewer
                ? 1_700_000_000 + Double(newerSavedTrackCount - position) * 3600 : 1_700_000_000 - Double(index) * 3600
        )
        return [
            "added_at": date.formatted(.iso8601),
            "track": trackObject(id: id, name: isNewer ? "New \(position)" : "Saved \(index)"),
        ]
    }

    private func artistObject(_ index: Int) -> [String: Any] {
        var artist = (Self.object("get-artists-several.json")["artists"] as! [[String: Any]])[index % 2]
        artist["id"] = Self.makeID(prefix: "A", index)
        artist["name"] = "Artist \(index)"
        return artist
    }

    private func playlistObject(_ playlist: FakePlaylist) -> [String: Any] {
        var object = (Self.object("get-me-playlists.json")["items"] as! [[String: Any]])[0]
        object["id"] = playlist.id
        object["name"] = playlist.name
        object["snapshot_id"] = playlist.snapshotID
        object["owner"] = ["id": playlist.owner, "display_name": playlist.owner, "type": "user"]
        let reference: [String: Any] = [
            "href": "\(baseURL)/v1/playlists/\(playlist.id)/items", "total": playlist.items.count,
        ]
        object["tracks"] = reference
        object["items"] = reference
        return object
    }

    private func playlistItem(_ listed: FakePlaylist.Item) -> Any {
        let items = Self.object("get-playlist-items.json")["items"] as! [[String: Any]]
        var item: [String: Any]
        switch listed.entry {
        case .track(let index):
            item = items[0]
            item["track"] = trackObject(id: Self.makeID(prefix: "L", index), name: "Listed \(index)")
        case .local:
            item = (Self.object("playlist-items-local-songs-excerpt.json")["items"] as! [[String: Any]])[0]
            var track = item["track"] as! [String: Any]
            track["uri"] = uri(of: listed)
            item["track"] = track
        case .episode:
            item = (Self.object("get-playlist-items-with-episode.json")["items"] as! [[String: Any]])[0]
            var episode = item["track"] as! [String: Any]
            episode["id"] = Self.makeID(prefix: "E", listed.serial)
            episode["uri"] = uri(of: listed)
            item["track"] = episode
        case .removed:
            item = items[0]
            item["track"] = NSNull()
        case .written(let uri):
            item = items[0]
            let parts = uri.split(separator: ":").map(String.init)
            let id = parts.last ?? ""
            if parts.count == 3, parts[1] == "episode" {
                var episode =
                    (Self.object("get-playlist-items-with-episode.json")["items"] as! [[String: Any]])[0]["track"]
                    as! [String: Any]
                episode["id"] = id
                episode["uri"] = uri
                item["track"] = episode
            } else {
                item["track"] = trackObject(id: id, name: "Pushed \(id)")
            }
        }
        item["added_at"] = listed.addedAt
        var adder = item["added_by"] as? [String: Any] ?? ["type": "user"]
        adder["id"] = listed.addedBy
        adder["uri"] = "spotify:user:\(listed.addedBy)"
        item["added_by"] = adder
        return item
    }

    // MARK: - Reorder

    /// `PUT /playlists/{id}/items` with `range_start`, `insert_before`, `range_length` and
    /// `snapshot_id`, as Spotify applies it: the range and the insertion point are positions in the
    /// snapshot named (the current one when none is), the items keep their `added_at` and
    /// `added_by`, and the answer is the new snapshot. Positions out of bounds are a 400.
    private func reorder(playlistAt index: Int, body: [String: Any]) -> FakeResponse {
        guard let start = body["range_start"] as? Int else {
            return .error(400, message: "Missing range_start parameter")
        }
        guard let before = body["insert_before"] as? Int else {
            return .error(400, message: "Missing insert_before parameter")
        }
        let length = body["range_length"] as? Int ?? 1
        let current = playlists[index].items.map(\.serial)
        let base: [Int]
        if let snapshot = body["snapshot_id"] as? String {
            guard snapshot.hasPrefix("snap-\(playlists[index].id)-"), let items = snapshotItems[snapshot] else {
                return .error(400, message: "Invalid snapshot id")
            }
            base = items
        } else {
            base = current
        }
        guard start >= 0, length >= 1, start + length <= base.count, before >= 0, before <= base.count else {
            return .error(400, message: "Given positions are out of bounds")
        }
        // Inserting a range inside itself leaves the order as it is.
        if before >= start && before <= start + length {
            return .json(200, Self.encode(["snapshot_id": playlists[index].snapshotID]))
        }
        let moving = Array(base[start..<(start + length)])
        let anchor = before < base.count ? base[before] : nil
        var items = playlists[index].items
        let moved = moving.compactMap { serial in items.first { $0.serial == serial } }
        items.removeAll { moving.contains($0.serial) }
        let at = anchor.flatMap { serial in items.firstIndex { $0.serial == serial } } ?? items.count
        items.insert(contentsOf: moved, at: at)
        playlists[index].items = items
        reorders += 1
        bumpSnapshot(index)
        return .json(200, Self.encode(["snapshot_id": playlists[index].snapshotID]))
    }

    private func recentlyPlayed(after: Int64?, limit: Int) -> Data {
        var object = Self.object("get-me-player-recently-played.json")
        let template = (object["items"] as! [[String: Any]])[0]
        let base: Int64 = 1_700_000_000_000
        var plays: [[String: Any]] = []
        for index in 0..<playCount {
            let millis = base - Int64(index) * 240_000
            if let after, millis <= after { continue }
            var play = template
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            play["played_at"] = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            play["track"] = trackObject(id: Self.makeID(prefix: "R", index), name: "Played \(index)")
            plays.append(play)
        }
        plays = Array(plays.prefix(limit))
        object["items"] = plays
        object["cursors"] =
            plays.isEmpty ? NSNull() : ["after": "\(base)", "before": "\(base - Int64(plays.count - 1) * 240_000)"]
        object["next"] = NSNull()
        return Self.encode(object)
    }

    static func object(_ fixture: String) -> [String: Any] {
        try! JSONSerialization.jsonObject(with: Fixtures.data("spotify/\(fixture)")) as! [String: Any]
    }

    static func encode(_ object: Any) -> Data {
        try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}

/// A playlist in the fake library.
public struct FakePlaylist: Sendable, Hashable {
    /// What one position of the playlist holds.
    public enum Entry: Sendable, Hashable {
        /// A generated catalogue track.
        case track(index: Int)
        /// A local file (`is_local`, no ID), from the Local Songs capture.
        case local
        /// A podcast episode.
        case episode
        /// A track Spotify removed: `"track": null`.
        case removed
        /// A track written through the API (`POST`/`PUT` items), by URI.
        case written(uri: String)
    }

    /// One position of the playlist: what it holds, when and by whom it was added.
    public struct Item: Sendable, Hashable {
        public var entry: Entry
        /// ISO 8601, as `added_at`.
        public var addedAt: String
        /// The user ID of `added_by`.
        public var addedBy: String
        /// The fake's own serial, so an item is known after it moves.
        var serial: Int
    }

    /// An item as a test reads it back.
    public struct ListedItem: Sendable, Hashable {
        /// `spotify:track:…`, `spotify:episode:…`, `spotify:local:…`, or `nil` for a removed track.
        public var uri: String?
        public var addedAt: String
        public var addedBy: String
    }

    public var id: String
    public var name: String
    public var owner: String
    public var snapshotID: String
    public var items: [Item]
    /// What each position holds.
    public var entries: [Entry] { items.map(\.entry) }
    var version = 1

    init(id: String, name: String, owner: String, snapshotID: String, items: [Item]) {
        self.id = id
        self.name = name
        self.owner = owner
        self.snapshotID = snapshotID
        self.items = items
    }
}

struct FakeResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
    var drops = false

    static func json(_ status: Int, _ body: Data) -> FakeResponse {
        FakeResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body)
    }

    static func error(_ status: Int, message: String?) -> FakeResponse {
        var error: [String: Any] = ["status": status]
        if let message { error["message"] = message }
        return .json(status, FakeSpotifyState.encode(["error": error]))
    }
}

/// Routes every request to the state actor and turns its answer into a FlyingFox response.
private struct FakeSpotifyHandler: HTTPHandler {
    let state: FakeSpotifyState

    func handleRequest(_ request: FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
        let recorded = FakeSpotifyRequest(
            method: request.method.rawValue,
            path: request.path,
            query: Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }),
            authorization: request.headers[.authorization],
            body: try await request.bodyData
        )
        let answer = await state.handle(recorded)
        var headers = HTTPHeaders()
        for (name, value) in answer.headers { headers[HTTPHeader(name)] = value }
        let status = HTTPStatusCode(answer.status, phrase: "Fake")
        if answer.drops {
            return FlyingFox.HTTPResponse(
                statusCode: status,
                headers: headers,
                body: HTTPBodySequence(from: TruncatedBody(prefix: Array(answer.body)), count: answer.body.count + 500)
            )
        }
        return FlyingFox.HTTPResponse(statusCode: status, headers: headers, body: answer.body)
    }
}

/// A body that yields its prefix and then fails, so the server closes the connection mid-response.
private struct TruncatedBody: AsyncBufferedSequence {
    typealias Element = UInt8
    let prefix: [UInt8]

    func makeAsyncIterator() -> Iterator { Iterator(prefix: prefix) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var prefix: [UInt8]?

        mutating func next() async throws -> UInt8? {
            guard var bytes = prefix, !bytes.isEmpty else { throw CancellationError() }
            let first = bytes.removeFirst()
            prefix = bytes
            return first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard let bytes = prefix else { throw CancellationError() }
            prefix = nil
            return bytes
        }
    }
}

/// A device of the fake player.
public struct FakeDevice: Sendable, Hashable {
    public var id: String
    public var name: String
    public var type: String
    public var isActive: Bool
    public var isRestricted = false

    public init(id: String, name: String, type: String, isActive: Bool, isRestricted: Bool = false) {
        self.id = id
        self.name = name
        self.type = type
        self.isActive = isActive
        self.isRestricted = isRestricted
    }

    /// Spotify's device object.
    var object: [String: Any] {
        [
            "id": id, "name": name, "type": type, "is_active": isActive, "is_restricted": isRestricted,
            "is_private_session": false, "volume_percent": 60, "supports_volume": true,
        ]
    }
}

/// What the fake player is doing.
public struct FakePlayer: Sendable, Hashable {
    public var deviceID: String?
    public var isPlaying = false
    public var contextURI: String?
    public var uris: [String] = []
    public var trackIndex = 0
    public var positionMS = 0
    public var isShuffled = false
}
