import Features
import Foundation
import Ingest
import VibesServer
import VibesTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A real store in a temporary folder, filled by importing Exportify CSVs, and a server on
/// 127.0.0.1 over it, spoken to with raw HTTP/1.1 so that any header (Host, Origin) can be sent.
struct ServerHarness {
    /// An answer: status, header fields (lower-case names) and body.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The body as a JSON object.
        func json() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
        }

        /// `error.code` of a JSON error body.
        var errorCode: String? {
            ((try? json())?["error"] as? [String: Any])?["code"] as? String
        }

        /// `error.message` of a JSON error body.
        var errorMessage: String? {
            ((try? json())?["error"] as? [String: Any])?["message"] as? String
        }
    }

    let folder: String
    let store: LibraryStore
    let port: Int

    /// The Spotify ID of synthetic track `index`.
    static func spotifyID(_ index: Int) -> String {
        let digits = String(index)
        return String(repeating: "0", count: 22 - digits.count) + digits
    }

    static let exportifyHeader =
        "Track URI,Track Name,Album Name,Artist Name(s),Release Date,Duration (ms),Popularity,Explicit,Added By,Added At,Genres,Record Label,Danceability,Energy,Key,Loudness,Mode,Speechiness,Acousticness,Instrumentalness,Liveness,Valence,Tempo,Time Signature"

    /// The energy of synthetic track `index`: tracks 1–10 are calm, later ones lively.
    static func energy(_ index: Int) -> Double {
        index <= 10 ? 0.1 + Double(index) / 100 : 0.8 + Double((index - 10) % 20) / 100
    }

    /// Writes tracks `indices` as an Exportify playlist called `name` and imports it into `store`.
    static func importPlaylist(_ name: String, indices: [Int], into store: LibraryStore, folder: String) throws {
        var lines = [exportifyHeader]
        for index in indices {
            let values = [0.5, energy(index), 5, -7.5, 1, 0.05, 0.2, 0.0, 0.1, 0.6, 120, 4].map { "\($0)" }
            lines.append(
                "spotify:track:\(spotifyID(index)),Song \(index),Album \(index % 3),Artist \(index % 4),2020-01-01,"
                    + "\(180_000 + index),50,false,,2024-01-01T00:00:00Z,\"pop\",\"Label\","
                    + values.joined(separator: ",")
            )
        }
        let path = folder + "/" + name.replacingOccurrences(of: " ", with: "_") + ".csv"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        _ = try store.importFile(at: path)
    }

    /// Saves a clustering run of two vibes over every track with features: "Calm" (energy below
    /// 0.5) and "Lively".
    static func saveRun(in store: LibraryStore) throws {
        let table = try store.featureTable()
        let labels: [Int32] = (0..<table.rowCount).map { (table.value(row: $0, feature: .energy) ?? 0) < 0.5 ? 0 : 1 }
        let schema = try FeatureSchema(features: [.energy])
        let scaling = FeatureScaling(
            schema: schema,
            columns: [.init(name: "energy", feature: .energy, encoding: .linear, offset: 0.5, scale: 0.3, weight: 1)]
        )
        let run = ClusteringRun(
            algorithm: .lloyd,
            clusterCount: 2,
            seed: 7,
            restartCount: 1,
            maxIterations: 50,
            tolerance: 1e-4,
            threadCount: 1,
            scaling: scaling,
            trackCount: table.rowCount,
            excludedTrackCount: 0,
            iterationCount: 2,
            hasConverged: true,
            inertia: 1,
            silhouette: nil,
            calinskiHarabasz: nil,
            daviesBouldin: nil,
            clusterCountScan: nil
        )
        let clusters = [("Calm", Mood.calm), ("Lively", Mood.happy)].enumerated().map { index, vibe in
            let size = labels.count { $0 == Int32(index) }
            return ClusterRecord(
                runID: 0,
                cluster: index,
                name: vibe.0,
                mood: vibe.1,
                size: size,
                share: Double(size) / Double(labels.count),
                centroidScaled: [Float(index)],
                centroidOriginal: ["energy": Double(index)],
                means: ["energy": Double(index)],
                zScores: ["energy": 0],
                distinguishingFeatures: ["energy"]
            )
        }
        try store.saveClusteringRun(
            run,
            clusters: clusters,
            trackIDs: table.trackIDs,
            labels: labels,
            distances: Array(repeating: 0.1, count: labels.count)
        )
    }

    /// Runs `body` against a server over a store with two playlists ("Quiet Evening": tracks
    /// 1–8; "Workout": 9–20) and a run of two vibes.
    static func withServer<T>(
        configuration: VibesServer.Configuration = VibesServer.Configuration(port: 0, pollInterval: .milliseconds(100)),
        spotify: SpotifyAccount? = nil,
        _ body: (ServerHarness) async throws -> T
    ) async throws -> T {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            try importPlaylist("Quiet Evening", indices: Array(1...8), into: store, folder: folder)
            try importPlaylist("Workout", indices: Array(9...20), into: store, folder: folder)
            try saveRun(in: store)
            let server = VibesServer(configuration: configuration, store: store, spotify: spotify)
            let (urls, continuation) = AsyncStream.makeStream(of: URL.self)
            let task = Task {
                // A server that fails before it listens ends the stream, so the wait below ends too.
                defer { continuation.finish() }
                try await server.run { url in continuation.yield(url) }
            }
            var iterator = urls.makeAsyncIterator()
            guard let url = await iterator.next() else {
                try await task.value
                throw CancellationError()
            }
            let result: Result<T, any Error>
            do {
                result = .success(try await body(ServerHarness(folder: folder, store: store, port: url.port ?? 0)))
            } catch {
                result = .failure(error)
            }
            // Cancelling stops the server: `run` returns.
            task.cancel()
            try await task.value
            return try result.get()
        }
    }

    /// Asks for `path` every 50 ms until it answers `expected` or `timeout` has passed.
    ///
    /// - Returns: The last status.
    func status(of path: String, becoming expected: Int, within timeout: Duration) async throws -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var status = try await get(path).status
        while status != expected, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            status = try await get(path).status
        }
        return status
    }

    /// Sends `GET path` with a correct Host and the given extra header lines.
    func get(_ path: String, headers: [String] = []) async throws -> Answer {
        try await send(method: "GET", path: path, headers: ["Host: 127.0.0.1:\(port)"] + headers)
    }

    /// Sends one request over a new connection and reads the whole answer, on a thread of its
    /// own: blocked on the cooperative pool (two threads on two cores), it would starve the server.
    func send(method: String, path: String, headers: [String], body: String = "") async throws -> Answer {
        let port = port
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        try Self.exchange(port: port, method: method, path: path, headers: headers, body: body)
                    }
                )
            }.start()
        }
    }

    static func exchange(port: Int, method: String, path: String, headers: [String], body: String) throws -> Answer {
        let descriptor = try connectToLoopback(port: port)
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        // Loose: the whole suite on 2 cores can hold the server back for many seconds.
        var timeout = timeval(tv_sec: 90, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request =
            ([method + " " + path + " HTTP/1.1"] + headers + ["Connection: close", "", ""]).joined(
                separator: "\r\n"
            ) + body
        var bytes = Array(request.utf8)
        while !bytes.isEmpty {
            let sent = Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL))
            guard sent > 0 else { break }
            bytes.removeFirst(sent)
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[..<count]
        }
        let separator = Array("\r\n\r\n".utf8)
        guard received.count >= 4,
            let end = (0...(received.count - 4)).first(where: { Array(received[$0..<$0 + 4]) == separator })
        else {
            return Answer(status: 0, headers: [:], body: Data())
        }
        let head = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, headers: fields, body: Data(received[(end + 4)...]))
    }
}
