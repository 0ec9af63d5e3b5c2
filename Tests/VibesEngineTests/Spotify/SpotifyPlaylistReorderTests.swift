import Features
import Foundation
import Ingest
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesEngine
import VibesTestSupport

/// The store's reorder steps against the fake Spotify, whose reorder operation keeps each item's
/// date added and adder as Spotify's does.
struct SpotifyPlaylistReorderTests {
    /// The LIS length by the quadratic recurrence, to check the fast one against.
    static func slowLISLength(_ values: [Int]) -> Int {
        var best = [Int](repeating: 1, count: values.count)
        for i in values.indices {
            for j in 0..<i where values[j] < values[i] { best[i] = max(best[i], best[j] + 1) }
        }
        return best.max() ?? 0
    }

    /// The new position of each item, read in the current order.
    static func ranks(_ target: [Int]) -> [Int] {
        var rank = [Int](repeating: 0, count: target.count)
        for (position, item) in target.enumerated() { rank[item] = position }
        return rank
    }

    @Test func movesReachEveryRandomPermutationInNMinusLISSteps() {
        var random = SplitMix64(seed: 45)
        for round in 0..<600 {
            let n = round < 10 ? round : random.next(below: 60) + 1
            var target = Array(0..<n)
            target.shuffle(using: &random)
            if round % 7 == 0 { target = Array(0..<n) }  // already in order: no move
            if round % 11 == 0 { target = Array((0..<n).reversed()) }  // reversed: n − 1 moves
            let moves = PlaylistMoves.moves(toReach: target)
            #expect(PlaylistMoves.apply(moves, to: Array(0..<n)) == target, "round \(round): \(target)")
            let lis = PlaylistMoves.longestIncreasingSubsequence(Self.ranks(target))
            #expect(lis.count == Self.slowLISLength(Self.ranks(target)))
            #expect(zip(lis, lis.dropFirst()).allSatisfy { Self.ranks(target)[$0] < Self.ranks(target)[$1] })
            #expect(moves.count == n - lis.count, "round \(round)")
            // Every move is a real one, in bounds.
            #expect(moves.allSatisfy { $0.rangeLength == 1 && $0.rangeStart < n && $0.insertBefore <= n })
            #expect(moves.allSatisfy { $0.insertBefore != $0.rangeStart && $0.insertBefore != $0.rangeStart + 1 })
        }
    }

    @Test func spotifysRangesAndInsertionPointsAreAppliedAsDocumented() {
        let items = Array(0..<10)
        // "To reorder the first item to the last position in a playlist with 10 items, set
        // range_start to 0, and insert_before to 10."
        #expect(PlaylistMoves.apply([PlaylistMove(rangeStart: 0, insertBefore: 10)], to: items).last == 0)
        // "the last item … to the start: range_start 9, insert_before 0."
        #expect(PlaylistMoves.apply([PlaylistMove(rangeStart: 9, insertBefore: 0)], to: items).first == 9)
        // "To move the items at index 9-10 to the start": a range of 2.
        let twelve = Array(0..<12)
        #expect(
            PlaylistMoves.apply([PlaylistMove(rangeStart: 9, insertBefore: 0, rangeLength: 2)], to: twelve).prefix(3)
                == [9, 10, 0]
        )
        // The spec's example body: range_start 1, insert_before 3, range_length 2.
        #expect(
            PlaylistMoves.apply([PlaylistMove(rangeStart: 1, insertBefore: 3, rangeLength: 2)], to: items) == items
        )
        #expect(
            PlaylistMoves.apply([PlaylistMove(rangeStart: 1, insertBefore: 4, rangeLength: 2)], to: items).prefix(4)
                == [0, 3, 1, 2]
        )
        #expect(PlaylistMoves.target(from: ["a", "b", "a"], to: ["a", "a", "b"]) == [0, 2, 1])
        #expect(PlaylistMoves.target(from: ["a", "b"], to: ["a", "c"]) == nil)
    }

    @Test func theFakeAppliesRangesAgainstTheSnapshotNamed() async throws {
        try await FakeSpotify.withServer { fake in
            let playlist = await fake.state.addPlaylist(name: "Five", trackCount: 5)
            let signedIn = try await makeSignedInClient(fake)
            let id = try #require(SpotifyID(playlist.id))
            let original = await fake.state.items(ofPlaylist: playlist.id).map(\.uri)
            // A range of two, to the end.
            let second = try await signedIn.client.reorderItems(
                of: id,
                rangeStart: 0,
                insertBefore: 5,
                rangeLength: 2,
                snapshotID: playlist.snapshotID
            )
            var now = await fake.state.items(ofPlaylist: playlist.id).map(\.uri)
            #expect(now == Array(original[2...] + original[..<2]))
            // The same move again, naming the first snapshot: the same items move before the same
            // item (the end), so nothing changes: a resent move cannot move twice.
            try await signedIn.client.reorderItems(
                of: id,
                rangeStart: 0,
                insertBefore: 5,
                rangeLength: 2,
                snapshotID: playlist.snapshotID
            )
            #expect(await fake.state.items(ofPlaylist: playlist.id).map(\.uri) == now)
            // Positions in the newer snapshot: its first item (original 2) to the end.
            try await signedIn.client.reorderItems(of: id, rangeStart: 0, insertBefore: 5, snapshotID: second)
            now = await fake.state.items(ofPlaylist: playlist.id).map(\.uri)
            #expect(now == [original[3], original[4], original[0], original[1], original[2]])

            let outOfBounds = await spotifyError {
                try await signedIn.client.reorderItems(
                    of: id,
                    rangeStart: 4,
                    insertBefore: 0,
                    rangeLength: 3,
                    snapshotID: nil
                )
            }
            #expect(
                outOfBounds
                    == .http(
                        status: 400,
                        message: "Given positions are out of bounds",
                        endpoint: "PUT /v1/playlists/\(playlist.id)/items"
                    )
            )
            let unknown = await spotifyError {
                try await signedIn.client.reorderItems(
                    of: id,
                    rangeStart: 0,
                    insertBefore: 2,
                    snapshotID: "snap-other-1"
                )
            }
            #expect(
                unknown
                    == .http(
                        status: 400,
                        message: "Invalid snapshot id",
                        endpoint: "PUT /v1/playlists/\(playlist.id)/items"
                    )
            )
        }
    }

    @Test func aReorderByMovesKeepsDatesAddersLocalFilesAndEpisodes() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                var entries: [FakePlaylist.Entry] = (0..<30).map { .track(index: 70_000 + $0) }
                entries.insert(.local, at: 3)
                entries.insert(.episode, at: 10)
                entries.insert(.removed, at: 17)
                entries.insert(.local, at: 25)
                let playlist = await fake.state.addPlaylist(
                    name: "Shared",
                    entries: entries,
                    adders: ["wizzler", "friend", "cousin"]
                )
                let before = await fake.state.items(ofPlaylist: playlist.id)
                let signedIn = try await makeSignedInClient(fake)
                let store = try LibraryStore(path: directory + "/library.sqlite")
                let id = try #require(SpotifyID(playlist.id))
                let read = try await store.readForReorder(id, using: signedIn.client)
                #expect(read.uris.count == 34 && read.snapshotID == "snap-\(playlist.id)-1")
                #expect(read.kinds.count { $0 == .local } == 2 && read.kinds.count { $0 == .episode } == 1)
                #expect(read.kinds.count { $0 == .unavailable } == 1)
                #expect(read.uris == before.map { $0.uri ?? ReorderablePlaylist.unavailableKey })

                var random = SplitMix64(seed: 7)
                var order = Array(0..<34)
                order.shuffle(using: &random)
                let result = try await store.writeReorder(read, order: order, using: signedIn.client)
                let after = await fake.state.items(ofPlaylist: playlist.id)
                #expect(after == order.map { before[$0] })  // the order, and every date and adder with it
                let lis = PlaylistMoves.longestIncreasingSubsequence(
                    SpotifyPlaylistReorderTests.ranks(order)
                ).count
                #expect(result.method == .moves && result.verified && result.operations == 34 - lis)
                #expect(result.otherItems == 4)
                #expect(await fake.state.reorders == 34 - lis)
                #expect(await fake.state.writtenItems[playlist.id] == nil)  // no replace, no append
                let writes = await fake.state.requests(to: "/v1/playlists/\(playlist.id)/items").filter {
                    $0.method != "GET"
                }
                #expect(writes.allSatisfy { $0.method == "PUT" })
                // Each move names the snapshot the previous one returned.
                let snapshots = writes.compactMap {
                    (try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any])?["snapshot_id"] as? String
                }
                #expect(snapshots == (1...writes.count).map { "snap-\(playlist.id)-\($0)" })

                let undone = try await store.undoReorder(of: id, name: "Shared", using: signedIn.client)
                #expect(await fake.state.items(ofPlaylist: playlist.id) == before)
                #expect(undone.method == .moves && undone.verified)
            }
        }
    }

    @Test func aPlaylistChangedBetweenReadAndWriteIsNotWritten() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let playlist = await fake.state.addPlaylist(name: "Moving", trackCount: 5)
                let signedIn = try await makeSignedInClient(fake)
                let store = try LibraryStore(path: directory + "/library.sqlite")
                let id = try #require(SpotifyID(playlist.id))
                let read = try await store.readForReorder(id, using: signedIn.client)
                #expect(read.uris.count == 5 && read.snapshotID == "snap-\(playlist.id)-1")
                #expect(read.trackIDs.allSatisfy { $0 == nil })  // the library does not hold them

                await fake.state.appendTracks(1, toPlaylist: playlist.id)
                await #expect(throws: PlaylistReorderError.self) {
                    try await store.writeReorder(read, order: [4, 3, 2, 1, 0], using: signedIn.client)
                }
                #expect(await fake.state.reorders == 0)
                await #expect(throws: PlaylistReorderError.notAPermutation) {
                    try await store.writeReorder(read, order: [0, 0, 1, 2, 3], using: signedIn.client)
                }

                let fresh = try await store.readForReorder(id, using: signedIn.client)
                let result = try await store.writeReorder(
                    fresh,
                    order: Array((0..<6).reversed()),
                    using: signedIn.client
                )
                #expect(result.itemCount == 6 && result.moved == 6 && result.operations == 5)
                #expect(await fake.state.items(ofPlaylist: playlist.id).map(\.uri) == fresh.uris.reversed())
            }
        }
    }

    @Test func aRewriteResetsDatesAndRefusesLocalFiles() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let playlist = await fake.state.addPlaylist(name: "Plain", trackCount: 4)
                let mixed = await fake.state.addPlaylist(name: "Mixed", trackCount: 3, localFiles: 1)
                let signedIn = try await makeSignedInClient(fake)
                let store = try LibraryStore(path: directory + "/library.sqlite")
                let read = try await store.readForReorder(try #require(SpotifyID(playlist.id)), using: signedIn.client)
                let result = try await store.writeReorder(
                    read,
                    order: [3, 2, 1, 0],
                    using: signedIn.client,
                    rewrite: true
                )
                #expect(result.method == .rewrite && result.operations == 1)
                let after = await fake.state.items(ofPlaylist: playlist.id)
                #expect(after.map(\.uri) == read.uris.reversed())
                #expect(after.allSatisfy { $0.addedAt >= "2025" })  // added anew

                let mixedRead = try await store.readForReorder(
                    try #require(SpotifyID(mixed.id)),
                    using: signedIn.client
                )
                await #expect(throws: PlaylistReorderError.unwritableItems(name: "Mixed", count: 1)) {
                    try await store.writeReorder(mixedRead, order: [3, 2, 1, 0], using: signedIn.client, rewrite: true)
                }
            }
        }
    }
}
