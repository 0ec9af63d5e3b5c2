import Analytics
import Features
import FlyingFox
import Foundation
import Ingest
import SpotifyWebAPI
import VibesEngine

// The explorer's endpoints: every track as a point on two axes (`GET /api/points`), what it can
// be filtered by (`GET /api/points/facets`), a list of tracks as an M3U or CSV file
// (`POST /api/exports`), and a saved playlist pushed to Spotify (`GET /api/spotify`,
// `POST /api/playlists/{id}/push`).

extension VibesServer {
    /// The axes `GET /api/points` draws besides the audio features: the library map's two
    /// principal components.
    static let mapAxes = ["pc1", "pc2"]

    /// The most genres `GET /api/points/facets` lists, the most common first.
    static let maximumFacetGenres = 150

    // MARK: - Spotify

    /// `GET /api/spotify`: whether the server can push playlists to Spotify now (the sign-in is
    /// looked up at each request, so one made after the server started counts).
    func spotifyStatus() async throws -> HTTPResponse {
        try Self.json(SpotifyStatus(isSignedIn: await signedInSpotifyClient() != nil))
    }

    /// `POST /api/playlists/{id}/push`: pushes the stored playlist `id` to Spotify, creating a
    /// private playlist the first time and replacing its items later; answers `spotify_id`, `url`,
    /// `created`, `item_count` and `skipped_without_id`.
    ///
    /// - Throws: ``APIError`` 409 `spotify_not_signed_in` when the server has no Spotify session, 404 for an
    ///   unknown playlist, 400 for one without a track with a Spotify ID, and the Spotify errors
    ///   of ``spotifyFailure(_:action:)``.
    func pushToSpotify(playlist text: String) async throws -> HTTPResponse {
        guard let id = Int64(text) else {
            throw APIError.badRequest("A playlist is named by its numeric id (got \"\(text)\").")
        }
        let client = try await requireSpotifyClient()
        let pushable: PushablePlaylist
        do {
            pushable = try await reads.run { [store] in try store.pushablePlaylist(rowID: id) }
        } catch StoreError.notFound {
            throw APIError.notFound("No playlist has id \(id).")
        }
        guard !pushable.uris.isEmpty else {
            throw APIError.badRequest(
                "\"\(pushable.name)\" has no tracks with a Spotify ID, so there is nothing to push."
            )
        }
        // The Spotify playlist when it has one, so that an order and a push of it do not interleave.
        let key = pushable.spotifyID?.rawValue ?? "push \(id)"
        guard spotifyWrites.start(key) else {
            throw APIError(
                status: 409,
                code: "spotify_busy",
                message: "“\(pushable.name)” is being pushed to Spotify already; try again when that is done."
            )
        }
        defer { spotifyWrites.finish(key) }
        let result: PlaylistPushResult
        do {
            // On the blocking queue: the pusher writes the store between its requests.
            result = try await withTaskExecutorPreference(reads) {
                try await SpotifyPlaylistPusher(client: client, store: store).push(pushable)
            }
        } catch {
            logger.info("Pushing playlist \(id) to Spotify failed: \(error)")
            throw Self.spotifyFailure(error, action: "take the playlist")
        }
        return try Self.json(PushedPlaylist(result: result))
    }

    // MARK: - Spotify account

    /// The answer when nobody is signed in to Spotify.
    static let notSignedIn = APIError(
        status: 409,
        code: "spotify_not_signed_in",
        message:
            "This server is not signed in to Spotify: run vibes-analyze auth login, then try again (no restart needed)."
    )

    /// A client of the Spotify account signed in now, or `nil` when there is none or the sign-in
    /// cannot be read.
    func signedInSpotifyClient() async -> SpotifyClient? {
        guard let spotify else { return nil }
        do {
            return try await spotify.signedInClient()
        } catch {
            // Spotify's errors never hold a token (see SpotifyError).
            logger.info("The Spotify sign-in could not be read: \(error)")
            return nil
        }
    }

    /// A client of the Spotify account signed in now.
    ///
    /// - Throws: ``APIError`` 409 `spotify_not_signed_in` when there is none.
    func requireSpotifyClient() async throws -> SpotifyClient {
        guard let client = await signedInSpotifyClient() else { throw Self.notSignedIn }
        return client
    }

    /// The API's error for a Spotify write that failed: 409 when the sign-in is gone or the
    /// playlist changed on Spotify meanwhile, 403 when the sign-in lacks a scope or the account
    /// may not change the playlist, 429 for Spotify's rate limit or the developer quota, 502
    /// otherwise. The message is Spotify's error, which holds no token, and what to do.
    ///
    /// - Parameter action: What Spotify did not do, such as "take the playlist".
    static func spotifyFailure(_ error: any Error, action: String) -> APIError {
        let cause = (error as? PlaylistPushInterruptedError)?.underlying ?? error
        switch cause {
        case let error as APIError:
            return error
        case SpotifyError.notSignedIn, SpotifyError.sessionRevoked:
            return APIError(status: 409, code: "spotify_not_signed_in", message: "\(error) " + notSignedIn.message)
        case SpotifyError.missingScope:
            return APIError(
                status: 403,
                code: "spotify_scope_missing",
                message: "\(error) Sign in again with vibes-analyze auth login, which asks for the playlist scopes."
            )
        case SpotifyError.http(403, _, _):
            return APIError(
                status: 403,
                code: "spotify_forbidden",
                message: "\(error) Only the playlist's owner (or a collaborator) can change it."
            )
        case SpotifyError.quotaExceeded(let retryAfter, let resetsAt, _):
            return APIError(
                status: 429,
                code: "spotify_quota_exceeded",
                message: "\(error)",
                retryAfterSeconds: retrySeconds(retryAfter, at: resetsAt)
            )
        case SpotifyError.rateLimited(let retryAfter, let retryAt, _):
            return APIError(
                status: 429,
                code: "spotify_rate_limited",
                message: "\(error)",
                retryAfterSeconds: retrySeconds(retryAfter, at: retryAt)
            )
        case let reorder as PlaylistReorderError:
            return APIError(
                status: 409,
                code: "spotify_playlist_changed",
                message: "\(reorder) Try again: the order is worked out afresh from what Spotify holds."
            )
        default:
            return APIError(status: 502, code: "spotify_error", message: "Spotify did not \(action): \(error)")
        }
    }

    /// Whole seconds until Spotify lets a retry through, from its `Retry-After` or the time it
    /// named, rounded up; `nil` when it said neither.
    static func retrySeconds(_ delay: Duration?, at time: Date?, now: Date = Date()) -> Int? {
        if let time { return max(1, Int(time.timeIntervalSince(now).rounded(.up))) }
        guard let delay else { return nil }
        let (seconds, attoseconds) = delay.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }

    // MARK: - Points

    /// `GET /api/points?x=FEATURE&y=FEATURE`: every track with features, in track-ID order, with
    /// its value on each axis (`null` where it has none) and its vibe number in the current run
    /// (0 for none). An axis is an audio feature (`energy`, `tempo`, …) or `pc1`/`pc2`, the
    /// library map's principal components. Defaults: `energy` and `valence`.
    ///
    /// The arrays are columns, written without a JSON encoder: 30,000 tracks are about 600 KB and
    /// take milliseconds.
    func points(_ request: HTTPRequest) throws -> HTTPResponse {
        let xName = request.query["x"] ?? "energy"
        let yName = request.query["y"] ?? "valence"
        let table = library.featureTable
        let needsMap = [xName, yName].contains { Self.mapAxes.contains($0) }
        let map = needsMap ? Self.libraryMap(of: table) : nil
        func column(_ name: String) throws -> [Float] {
            if let component = Self.mapAxes.firstIndex(of: name) {
                return map?[component] ?? [Float](repeating: .nan, count: table.rowCount)
            }
            guard let feature = AudioFeature(rawValue: name) else {
                let names = (AudioFeature.allCases.map(\.rawValue) + Self.mapAxes).joined(separator: ", ")
                throw APIError.badRequest("Unknown axis \"\(name)\": choose one of \(names).")
            }
            return (0..<table.rowCount).map { table.value(row: $0, feature: feature) ?? .nan }
        }
        let xs = try column(xName)
        let ys = try column(yName)
        let (vibes, vibeOfTrack, runID) = try currentVibes()
        var coverage = [Int](repeating: 0, count: FeatureTable.columnCount)
        for index in table.values.indices where !table.values[index].isNaN {
            coverage[index % FeatureTable.columnCount] += 1
        }
        let axes =
            AudioFeature.allCases.map { ($0.rawValue, coverage[FeatureTable.columnIndex(of: $0)]) }
            + Self.mapAxes.map { ($0, map == nil ? -1 : table.rowCount) }

        var json = JSONText()
        json.open()
        json.key("axes")
        json.array(axes) { json, axis in
            json.open()
            json.field("name", string: axis.0)
            // The map's coverage is only known once it is drawn.
            if axis.1 >= 0 { json.field("tracks", integer: axis.1) }
            json.close()
        }
        json.field("count", integer: table.rowCount)
        json.key("run_id")
        if let runID { json.integer(Int(runID)) } else { json.null() }
        json.key("track_ids")
        json.array(table.trackIDs) { $0.integer(Int($1)) }
        json.key("vibe")
        json.array(table.trackIDs) { $0.integer(vibeOfTrack[$1] ?? 0) }
        json.key("vibes")
        json.array(vibes) { json, vibe in
            json.open()
            json.field("number", integer: vibe.number)
            json.field("name", string: vibe.name)
            json.close()
        }
        json.key("x")
        json.axis(xName, values: xs)
        json.key("y")
        json.axis(yName, values: ys)
        return Self.response(closing: json)
    }

    /// The vibes of the current run, numbered largest first as `GET /api/vibes` numbers them, and
    /// the number of each assigned track.
    func currentVibes() throws -> (vibes: [(number: Int, name: String)], vibeOfTrack: [Int64: Int], runID: Int64?) {
        guard let runID = try store.currentClusteringRunID() else { return ([], [:], nil) }
        let ranked = try store.clusters(ofRun: runID).sorted {
            $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster
        }
        let numberOfCluster = Dictionary(
            uniqueKeysWithValues: ranked.enumerated().map { ($0.element.cluster, $0.offset + 1) }
        )
        let packed = try store.packedAssignments(ofRun: runID)
        var vibeOfTrack: [Int64: Int] = [:]
        vibeOfTrack.reserveCapacity(packed.trackIDs.count)
        for (trackID, cluster) in zip(packed.trackIDs, packed.clusters) {
            vibeOfTrack[trackID] = numberOfCluster[Int(cluster)]
        }
        return (ranked.enumerated().map { ($0.offset + 1, $0.element.name) }, vibeOfTrack, runID)
    }

    /// The library map: the tracks' first two principal components over the default features
    /// that at least half of the tracks have, z-scored; `NaN` for a track without all of them.
    /// `nil` when fewer than two tracks qualify.
    static func libraryMap(of table: FeatureTable) -> [[Float]]? {
        let features = FeatureSchema.defaultFeatures.filter { feature in
            let present = (0..<table.rowCount).count { table.value(row: $0, feature: feature) != nil }
            return present > 0 && present * 2 >= table.rowCount
        }
        guard let schema = try? FeatureSchema(features: features, imputing: []) else { return nil }
        let space = schema.makeSpace(from: table)
        let matrix = space.matrix.values
        guard matrix.rowCount >= 2 else { return nil }
        // Fitted on an even sample: the components of 20,000 tracks are those of all, to the
        // precision a scatter shows.
        let limit = 20_000
        let fitted: Matrix
        if matrix.rowCount <= limit {
            fitted = matrix
        } else {
            let width = matrix.columnCount
            var elements: [Float] = []
            elements.reserveCapacity(limit * width)
            for index in 0..<limit {
                let row = index * matrix.rowCount / limit
                elements += matrix.elements[(row * width)..<((row + 1) * width)]
            }
            fitted = Matrix(rowCount: limit, columnCount: width, elements: elements)
        }
        guard let pca = try? PCA.fit(fitted, componentCount: min(2, matrix.columnCount)) else { return nil }
        let projected = pca.project(matrix)
        var components = [[Float]](repeating: [Float](repeating: .nan, count: table.rowCount), count: 2)
        for (index, row) in space.tableRows.enumerated() {
            components[0][Int(row)] = projected[index, 0]
            components[1][Int(row)] = projected.columnCount > 1 ? projected[index, 1] : 0
        }
        return components
    }

    // MARK: - Facets

    /// `GET /api/points/facets`: what the explorer filters and lists by, keyed by track ID:
    /// each track's title, its feature source, the playlists and the most common genres with
    /// their tracks.
    func pointFacets() throws -> HTTPResponse {
        let trackIDs = library.featureTable.trackIDs
        let summaries = try store.trackSummaries(for: trackIDs)
        let (sources, sourceTrackIDs, sourceIndices) = try store.preferredFeatureSources()
        let sourceOfTrack = Dictionary(zip(sourceTrackIDs, sourceIndices), uniquingKeysWith: { first, _ in first })
        let inLibrary = Set(trackIDs)
        var genres: [String: [Int64]] = [:]
        for (trackID, tags) in try store.nameTags() where inLibrary.contains(trackID) {
            for tag in tags { genres[tag, default: []].append(trackID) }
        }
        let topGenres = genres.sorted { ($1.value.count, $0.key) < ($0.value.count, $1.key) }
            .prefix(Self.maximumFacetGenres)
        let playlists = try store.playlistOverviews(vibesOf: nil).map { overview in
            (id: overview.id, name: overview.name, trackIDs: try store.playlistTrackIDs(rowID: overview.id))
        }

        var json = JSONText()
        json.open()
        json.key("track_ids")
        json.array(trackIDs) { $0.integer(Int($1)) }
        json.key("titles")
        json.array(trackIDs) { json, id in
            let summary = summaries[id]
            let artists = summary?.artists.joined(separator: ", ") ?? ""
            json.string(summary.map { (artists.isEmpty ? "" : artists + " – ") + $0.name } ?? "track \(id)")
        }
        json.key("sources")
        json.array(sources) { $0.string($1) }
        json.key("source")
        // The index into `sources` of each track's source, -1 when unknown.
        json.array(trackIDs) { $0.integer(sourceOfTrack[$1].map(Int.init) ?? -1) }
        json.key("playlists")
        json.array(playlists) { json, playlist in
            json.open()
            json.field("id", integer: Int(playlist.id))
            json.field("name", string: playlist.name)
            json.key("track_ids")
            json.array(playlist.trackIDs.filter(inLibrary.contains)) { $0.integer(Int($1)) }
            json.close()
        }
        json.key("genres")
        json.array(Array(topGenres)) { json, genre in
            json.open()
            json.field("name", string: genre.key)
            json.key("track_ids")
            json.array(genre.value.sorted()) { $0.integer(Int($1)) }
            json.close()
        }
        return Self.response(closing: json)
    }

    /// `json`, an open object, closed with `schema_version` and answered with the headers of
    /// every JSON answer.
    static func response(closing json: JSONText) -> HTTPResponse {
        var json = json
        json.field("schema_version", integer: Self.schemaVersion)
        json.close()
        return HTTPResponse(
            statusCode: .ok,
            headers: Self.commonHeaders(contentType: "application/json; charset=utf-8"),
            body: json.data
        )
    }

    // MARK: - Exports

    /// `POST /api/exports` with `{"format": "m3u" | "csv", "name": "…", "track_ids": […]}`: the
    /// tracks, in order, as a file to download (`Content-Disposition: attachment`).
    ///
    /// An M3U entry is the track's local file path when the store knows one, else
    /// `Artist - Title`, under an `#EXTINF` line with its duration. The CSV has a header row and
    /// one row per track: `track_id, spotify_id, artist, title, album, duration_ms, path`.
    ///
    /// - Throws: ``APIError`` 400 for a body that is not such JSON, an unknown format, no tracks or
    ///   too many, or a track ID the store does not hold.
    func export(body: Data) throws -> HTTPResponse {
        let request: ExportRequest
        do {
            request = try JSONDecoder().decode(ExportRequest.self, from: body)
        } catch {
            throw APIError.badRequest(
                "Send the export as JSON: {\"format\": \"m3u\" or \"csv\", \"name\": \"…\", \"track_ids\": […]}."
            )
        }
        guard let format = ExportFormat(rawValue: request.format) else {
            throw APIError.badRequest("format must be m3u or csv (got \"\(request.format)\").")
        }
        let summaries = try summaries(ofListed: request.trackIDs)
        let paths = try store.localFilePaths(for: Set(request.trackIDs))
        let tracks = request.trackIDs.map { (summary: summaries[$0]!, path: paths[$0]) }
        let name = (request.name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let text =
            switch format {
            case .m3u: Self.m3u(tracks, name: name)
            case .csv: Self.csv(tracks)
            }
        var headers = Self.commonHeaders(contentType: format.contentType)
        headers[HTTPHeader("Content-Disposition")] = Self.attachment(named: name, extension: format.rawValue)
        return HTTPResponse(statusCode: .ok, headers: headers, body: Data(text.utf8))
    }

    /// The summaries of `trackIDs`, a list a request sent to be saved or exported.
    ///
    /// - Throws: ``APIError`` 400 for no tracks or more than ``maximumSavedTracks``, or a track
    ///   ID the store does not hold.
    func summaries(ofListed trackIDs: [Int64]) throws -> [Int64: TrackSummary] {
        guard (1...Self.maximumSavedTracks).contains(trackIDs.count) else {
            throw APIError.badRequest(
                "track_ids must hold 1 to \(Self.maximumSavedTracks) tracks (got \(trackIDs.count))."
            )
        }
        let summaries = try store.trackSummaries(for: Set(trackIDs))
        if let missing = trackIDs.first(where: { summaries[$0] == nil }) {
            throw APIError.badRequest("track_ids: the library has no track \(missing).")
        }
        return summaries
    }

    /// `attachment` with the file name `name.ext`, as ASCII (`filename`) and as UTF-8
    /// (`filename*`, RFC 6266): letters, digits, spaces, dots, hyphens and underscores of `name`
    /// only, so that no header or file system misreads it; `playlist` when none is left.
    static func attachment(named name: String, extension fileExtension: String) -> String {
        let kept = String(
            name.unicodeScalars.filter {
                $0.properties.isAlphabetic || $0.properties.numericType != nil || " ._-".unicodeScalars.contains($0)
            }
            .prefix(80)
        ).trimmingCharacters(in: .whitespaces)
        let base = kept.isEmpty ? "playlist" : kept
        let ascii = base.filter { $0.isASCII }
        let attributeCharacters = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._"
        )
        let encoded = base.addingPercentEncoding(withAllowedCharacters: attributeCharacters) ?? "playlist"
        return "attachment; filename=\"\(ascii.isEmpty ? "playlist" : ascii).\(fileExtension)\"; "
            + "filename*=UTF-8''\(encoded).\(fileExtension)"
    }

    /// An extended M3U playlist: local paths where known, else `Artist - Title`.
    static func m3u(_ tracks: [(summary: TrackSummary, path: String?)], name: String) -> String {
        var lines = ["#EXTM3U"]
        if !name.isEmpty { lines.append("#PLAYLIST:" + oneLine(name)) }
        for (summary, path) in tracks {
            let artists = summary.artists.joined(separator: ", ")
            let title = (artists.isEmpty ? "" : artists + " - ") + summary.name
            let seconds = summary.durationMS.map { $0 / 1_000 } ?? -1
            lines.append("#EXTINF:\(seconds),\(oneLine(title))")
            lines.append(oneLine(path ?? title))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A CSV file (RFC 4180): a header row, then one row per track.
    ///
    /// Names come from imported data: one that starts with `=`, `+`, `-`, `@`, a tab or a carriage
    /// return gets a leading `'`, so that a spreadsheet shows it rather than runs it as a formula.
    static func csv(_ tracks: [(summary: TrackSummary, path: String?)]) -> String {
        func field(_ text: String) -> String {
            text.contains(where: { ",\"\n\r".contains($0) })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        func name(_ text: String) -> String {
            guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return text }
            return "'" + text
        }
        var lines = ["track_id,spotify_id,artist,title,album,duration_ms,path"]
        for (summary, path) in tracks {
            lines.append(
                [
                    String(summary.id), summary.spotifyID ?? "", name(summary.artists.joined(separator: ", ")),
                    name(summary.name), name(summary.album ?? ""), summary.durationMS.map(String.init) ?? "",
                    name(path ?? ""),
                ].map(field).joined(separator: ",")
            )
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// `text` with line breaks as spaces: an M3U line holds one entry.
    private static func oneLine(_ text: String) -> String {
        text.replacing(/[\r\n]+/, with: " ")
    }
}

/// `GET /api/spotify`: whether the web app can push playlists.
struct SpotifyStatus: Encodable {
    var isSignedIn: Bool

    enum CodingKeys: String, CodingKey {
        case isSignedIn = "signed_in"
    }
}

/// The answer to `POST /api/playlists/{id}/push`: what the push did, and the playlist's address.
struct PushedPlaylist: Encodable {
    var result: PlaylistPushResult

    enum CodingKeys: String, CodingKey {
        case url
    }

    func encode(to encoder: any Encoder) throws {
        try result.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(result.url, forKey: .url)
    }
}

/// A file format of `POST /api/exports`.
enum ExportFormat: String {
    case m3u, csv

    var contentType: String {
        switch self {
        case .m3u: "audio/x-mpegurl; charset=utf-8"
        case .csv: "text/csv; charset=utf-8"
        }
    }
}

/// The body of `POST /api/exports`.
struct ExportRequest: Decodable {
    var format: String
    var name: String?
    var trackIDs: [Int64]

    enum CodingKeys: String, CodingKey {
        case format, name
        case trackIDs = "track_ids"
    }
}

/// JSON written by hand, for the explorer's long columns: `JSONEncoder` spends most of a second
/// on 30,000 tracks' arrays in a debug build.
struct JSONText {
    private(set) var bytes: [UInt8] = []
    /// Whether the next value or key needs a comma before it.
    private var needsComma = false

    var data: Data { Data(bytes) }

    mutating func open() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func close() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func field(_ name: String, string value: String) {
        key(name)
        string(value)
    }

    mutating func field(_ name: String, integer value: Int) {
        key(name)
        integer(value)
    }

    mutating func array<Element>(_ elements: some Sequence<Element>, _ write: (inout JSONText, Element) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for element in elements { write(&self, element) }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    mutating func null() {
        separate()
        bytes += Array("null".utf8)
    }

    mutating func integer(_ value: Int) {
        separate()
        bytes += Array(String(value).utf8)
    }

    /// `value` rounded to 4 decimals, or `null` when it is `NaN`.
    mutating func number(_ value: Float) {
        guard value.isFinite else { return null() }
        separate()
        let rounded = (Double(value) * 10_000).rounded() / 10_000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 {
            bytes += Array(String(Int(rounded)).utf8)
        } else {
            bytes += Array(String(rounded).utf8)
        }
    }

    /// `{"name": …, "values": […]}` for an axis.
    mutating func axis(_ name: String, values: [Float]) {
        open()
        field("name", string: name)
        key("values")
        array(values) { $0.number($1) }
        close()
    }

    mutating func string(_ text: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": bytes += Array("\\\"".utf8)
            case "\\": bytes += Array("\\\\".utf8)
            case "\n": bytes += Array("\\n".utf8)
            case "\r": bytes += Array("\\r".utf8)
            case "\t": bytes += Array("\\t".utf8)
            // `<` too, so that no text can close a script element if it is ever inlined.
            case _ where scalar.value < 0x20 || scalar == "<" || scalar == "\u{2028}" || scalar == "\u{2029}":
                bytes += Array(String(format: "\\u%04x", scalar.value).utf8)
            default: bytes += Array(String(scalar).utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }
}
