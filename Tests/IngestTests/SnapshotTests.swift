import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// The packed snapshots of the feature table and the track facts: read back bit for bit, cut to a
/// scope like a direct read, and never stale, whichever write changes what they were built from.
struct SnapshotTests {
    static let liked = Fixtures.path("exportify/Liked_Songs.csv")
    static let tidytuesday = Fixtures.path("csv/tidytuesday-excerpt.csv")
    /// Format, IDs, values, the content hash, and the counts: sources (two parts), preferred,
    /// coverage, out of range, source masks.
    static let featureParts = 10

    /// The counts by a scan of `audio_features`, bypassing the snapshot.
    func scannedStatistics(_ store: LibraryStore, _ scope: TrackScope) throws -> FeatureStatistics {
        try store.database.read { db in
            try LibraryStore.currentFeatureStatistics(
                in: db,
                condition: scope == .all ? nil : try store.condition(for: scope, in: db)
            )
        }
    }

    /// The feature table read straight from `audio_features`, bypassing the snapshot.
    func scanned(_ store: LibraryStore) throws -> FeatureTable {
        try store.database.read { db in try FeatureSnapshot(db).table }
    }

    func snapshotRows(_ store: LibraryStore, _ name: String) throws -> Int {
        try count(store, "SELECT count(*) FROM snapshots WHERE name = ?", [name])
    }

    func expectSameBits(_ a: FeatureTable, _ b: FeatureTable, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.trackIDs == b.trackIDs, sourceLocation: sourceLocation)
        #expect(a.values.map(\.bitPattern) == b.values.map(\.bitPattern), sourceLocation: sourceLocation)
    }

    @Test func theFeatureTableIsSavedOnceAndReadBackBitForBit() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            #expect(try snapshotRows(store, "features") == 0)
            let first = try store.featureTable()
            #expect(first.rowCount > 0)
            #expect(try snapshotRows(store, "features") == Self.featureParts)
            expectSameBits(first, try scanned(store))
            // The second read comes from the snapshot: make its values recognisable to prove it.
            try rewriteSnapshotFloats(store, name: "features", part: "values") { $0[0] = 0.123 }
            #expect(try store.featureTable().values[0] == 0.123)
        }
    }

    @Test func everyChangeToTheSourcesDeletesTheSnapshot() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            let changes: [(String, (LibraryStore) throws -> Void)] = [
                ("another import", { store in _ = try store.importFile(at: Self.liked) }),
                (
                    "a changed value",
                    { store in
                        try store.database.write { db in
                            try db.execute(
                                sql:
                                    "UPDATE audio_features SET energy_code = 0.5 WHERE track_id = (SELECT min(track_id) FROM audio_features)"
                            )
                        }
                    }
                ),
                (
                    "a new precedence",
                    { store in
                        try store.setFeatureSourcePrecedence(
                            FeatureSourcePrecedence(parsing: "local,dataset,export,reccobeats,spotify-api")
                        )
                    }
                ),
                (
                    "a deleted track",
                    { store in
                        try store.database.write { db in
                            try db.execute(
                                sql: "DELETE FROM tracks WHERE id = (SELECT max(track_id) FROM audio_features)"
                            )
                        }
                    }
                ),
            ]
            for (name, change) in changes {
                _ = try store.featureTable()
                #expect(try snapshotRows(store, "features") > 0, "\(name)")
                try change(store)
                #expect(try snapshotRows(store, "features") == 0, "\(name)")
                expectSameBits(try store.featureTable(), try scanned(store))
                #expect(try store.featureStatistics(scope: .all) == (try scannedStatistics(store, .all)), "\(name)")
            }
        }
    }

    @Test func anImportSuspendsTheTriggersAndAFailedOneRestoresEverything() throws {
        try withStore { store in
            func triggers() throws -> [String] {
                try store.database.read { db in
                    try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
                }
            }
            let before = try triggers()
            #expect(before.count == 26)  // 6 for the features, 8 for the facts, 12 for the blocks
            _ = try store.importFile(at: Self.tidytuesday)
            #expect(try triggers() == before)
            _ = try store.featureTable()
            _ = try store.trackAttributeColumns(for: [])
            let snapshot = try contentSnapshot(store)
            #expect(throws: (any Error).self) {
                try store.importFile(at: Fixtures.path("malformed/wrong-type.csv"))
            }
            #expect(try triggers() == before)
            #expect(try contentSnapshot(store) == snapshot)
            // The restored triggers still fire.
            try store.database.write { db in try db.execute(sql: "UPDATE artists SET name = name || '!'") }
            #expect(try snapshotRows(store, "facts") == 0 && snapshotRows(store, "features") == Self.featureParts)
        }
    }

    @Test func aScopeIsCutFromTheSnapshotLikeADirectRead() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            _ = try store.importFile(at: Self.liked)
            _ = try store.featureTable()  // the snapshot, which leaving the library does not change
            try store.database.write { db in try db.execute(sql: "UPDATE tracks SET in_library = id % 2") }
            let playlist = try #require(
                try store.database.read { db in
                    try String.fetchOne(
                        db,
                        sql: """
                            SELECT p.name FROM playlists p JOIN playlist_items i ON i.playlist_id = p.id
                            GROUP BY p.id ORDER BY count(*) DESC LIMIT 1
                            """
                    )
                }
            )
            for scope in [TrackScope.library, .playlist(playlist)] {
                let direct = try store.database.read { db in
                    var table = FeatureTable()
                    try LibraryStore.scanCurrentFeatures(in: db, condition: try store.condition(for: scope, in: db)) {
                        row in
                        var features = AudioFeatures()
                        for (index, feature) in AudioFeature.allCases.enumerated() {
                            features[feature] = row.values[index]
                        }
                        table.append(trackID: row.trackID, features: features)
                    }
                    return table
                }
                let counts = try store.featureStatistics(scope: scope)
                #expect(counts == (try scannedStatistics(store, scope)), "\(scope)")
                #expect(counts.preferred.values.reduce(0, +) > 0 && !counts.rows.isEmpty, "\(scope)")
                let cut = try store.featureTable(scope: scope)
                let all = try store.featureTable()
                #expect(try snapshotRows(store, "features") == Self.featureParts)
                #expect(cut.rowCount > 0 && cut.rowCount < all.rowCount, "\(scope)")
                expectSameBits(cut, direct)
            }
        }
    }

    @Test func trackFactsFollowRenames() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.liked)
            let ids = try store.featureTable().trackIDs
            let direct = try store.database.read { db in try AllTrackFacts(db) }
            let first = try store.trackFacts(for: ids)
            #expect(first == ids.map { id in direct.facts[direct.index(of: id)!] })
            #expect(first.contains { $0.artists.count > 1 } && first.allSatisfy { $0.songKey != nil })
            // Unsorted IDs and an unknown one are answered in the order asked.
            #expect(try store.trackFacts(for: [ids[1], -5, ids[0]]) == [first[1], TrackFacts(), first[0]])

            let artist = try #require(first[0].artists.first)
            try store.database.write { db in
                try db.execute(sql: "UPDATE artists SET name = 'Renamed Artist' WHERE name = ?", arguments: [artist])
            }
            #expect(try snapshotRows(store, "facts") == 0)
            let renamed = try store.trackFacts(for: ids)
            #expect(renamed[0].artists.first == "Renamed Artist")
            #expect(renamed[0].songKey != first[0].songKey)
        }
    }

    @Test func attributeColumnsAgreeWithTheFactsAndReadNoNames() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            let ids = try store.featureTable().trackIDs
            let facts = try store.trackFacts(for: ids)
            let columns = try store.trackAttributeColumns(for: ids)
            #expect(columns.count == ids.count)
            // A track without artists, then the scans' parts against the values'.
            try store.database.write { db in
                try db.execute(sql: "DELETE FROM track_artists WHERE track_id = ?", arguments: [ids[5]])
            }
            let built = try store.database.read { db in try TrackFactsParts.build(db) }
            #expect(built == (try store.database.read { db in try AllTrackFacts(db) }).referenceParts)
            let artists = facts.map { Track.normalizedName($0.artists.first ?? "") }
            // Equal codes exactly when the folded main artists (the song keys) are equal.
            var artistOfCode: [Int32: String] = [:]
            var songOfCode: [Int32: String] = [:]
            for row in ids.indices {
                #expect((columns.artistCodes[row] < 0) == artists[row].isEmpty)
                #expect((columns.songCodes[row] < 0) == (facts[row].songKey == nil))
                if columns.artistCodes[row] >= 0 {
                    #expect(artistOfCode[columns.artistCodes[row], default: artists[row]] == artists[row])
                    artistOfCode[columns.artistCodes[row]] = artists[row]
                }
                if let key = facts[row].songKey {
                    #expect(songOfCode[columns.songCodes[row], default: key] == key)
                    songOfCode[columns.songCodes[row]] = key
                }
                #expect(columns.duration(row: row) == facts[row].durationMS)
                #expect(columns.popularity(row: row) == facts[row].popularity)
            }
            #expect(Set(artistOfCode.values).count == artistOfCode.count, "one code per artist")
            #expect(Set(songOfCode.values).count == songOfCode.count, "one code per song")
            #expect(songOfCode.count < ids.count, "the excerpt holds several releases of one song")
            // An unknown ID gets unknowns, in the order asked.
            let picked = try store.trackAttributeColumns(for: [ids[2], -5, ids[0]])
            #expect(picked.artistCodes == [columns.artistCodes[2], -1, columns.artistCodes[0]])
            #expect(picked.songCodes == [columns.songCodes[2], -1, columns.songCodes[0]])
            // The snapshot keeps no names: they are read from `tracks` by ID.
            let parts = try store.database.read { db in
                try String.fetchAll(db, sql: "SELECT part FROM snapshots WHERE name = 'facts' ORDER BY part")
            }
            #expect(!parts.isEmpty && !parts.contains("names") && !parts.contains("name_ends"))
            #expect(try store.factsSnapshot().trackIDs == ids)
        }
    }

    @Test func theStreamingBuildCodesWhatTheWholeTableWould() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.liked)
            _ = try store.importFile(at: Self.tidytuesday)
            try store.database.read { db in
                let streamed = try FeatureSnapshot.buildParts(db)
                let snapshot = try #require(FeatureSnapshot(parts: SnapshotParts(streamed)))
                #expect(snapshot.table.rowCount > 20 && snapshot.hasStatistics)
                // The parts coded from the whole table and counts, as the snapshot held them.
                #expect(snapshot.parts == streamed)
                #expect(streamed["content_hash"]?.data == Data(snapshot.table.contentHash().utf8))
            }
        }
    }

    @Test func theStreamingBuildWidensItsSourceMasksAsSourcesAppear() throws {
        // Rows from up to 40 sources, the first 8 alone for a while, so that the masks start a byte
        // wide and widen to 2, 4 and 8 bytes while the build runs.
        for sourceCount in [3, 12, 20, 40, 70] {
            let numbering = SourceNumbering()
            var builder = FeatureSnapshot.Builder()
            var expectedMasks: [UInt64] = []
            for track in 0..<3000 {
                var row = LibraryStore.CurrentFeatureRow()
                row.trackID = Int64(track) * 3 + 1
                let reach = min(sourceCount, 8 + track / 40)
                let source = track * 7 % reach
                row.source = Array("file:source-\(source)".utf8)
                var mask: UInt64 = 0
                for other in [source, (source + 1) % reach] {
                    let number = numbering.number(of: Array("file:source-\(other)".utf8))
                    if number < 64 { mask |= 1 << UInt64(number) }
                }
                row.sourceMask = mask
                row.outOfRangeFlags = track % 5 == 0 ? 1 << (track % 12) : 0
                row.values = AudioFeature.allCases.enumerated().map { index, feature in
                    track % 11 == index ? nil : feature.validRange.lowerBound + Double(track % 97) / 97
                }
                builder.append(row, calibrations: [], numbering: numbering)
                expectedMasks.append(mask)
            }
            let parts = builder.finish(sources: numbering.keys.map { String(decoding: $0, as: UTF8.self) })
            let snapshot = try #require(FeatureSnapshot(parts: SnapshotParts(parts)))
            let expectedIDs: [Int64] = (0..<3000).map { Int64($0) * 3 + 1 }
            #expect(snapshot.trackIDs == expectedIDs)
            guard sourceCount <= 64 else {
                #expect(!snapshot.hasStatistics && parts["source_masks"] == nil, "over 64 sources, no counts")
                continue
            }
            #expect(snapshot.sourceMasks == expectedMasks, "\(sourceCount) sources")
            #expect(
                parts["source_masks"]?.byteCount == 3000 * FeatureSnapshot.maskBytes(sourceCount: sourceCount)
            )
            #expect(snapshot.parts == parts)
        }
    }

    @Test func damagedPartsAreRebuiltNotTrusted() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.liked)
            let good = try store.database.read { db in try FeatureSnapshot(db) }
            #expect(FeatureSnapshot(parts: SnapshotParts(good.parts)) != nil)
            #expect(good.sources.count < 8, "one byte a mask")
            var parts = good.parts
            parts["source_masks"] = SnapshotBlob(good.sourceMasks.map { UInt8($0 | 0x80) })
            #expect(FeatureSnapshot(parts: SnapshotParts(parts)) == nil, "a source that is not there")
            parts = good.parts
            parts["source_masks"] = SnapshotBlob(good.sourceMasks)
            #expect(FeatureSnapshot(parts: SnapshotParts(parts)) == nil, "masks of another width")
            parts = good.parts
            parts["preferred"] = SnapshotBlob(good.preferred.map { _ in UInt8(200) })
            #expect(FeatureSnapshot(parts: SnapshotParts(parts)) == nil)
            parts = good.parts
            parts["values"] = SnapshotBlob(parts["values"]!.data.dropLast(4))
            #expect(FeatureSnapshot(parts: SnapshotParts(parts)) == nil)
            parts = good.parts
            parts["track_ids"] = .ascending(Array(good.trackIDs.dropLast()))
            #expect(FeatureSnapshot(parts: SnapshotParts(parts)) == nil, "a track short")
            parts["track_ids"] = SnapshotBlob(good.trackIDs)
            #expect(FeatureSnapshot(parts: SnapshotParts(parts)) == nil, "IDs not in the packed form")
            // Offsets that fall back or run past the bytes.
            #expect(PackedStrings.strings(bytes: Data("abcdef".utf8), ends: PackedArray.data([Int32(4), 2, 6])) == nil)
            #expect(
                PackedStrings.strings(bytes: Data("abc".utf8), ends: PackedArray.data([Int32(1), 3])) == ["a", "bc"]
            )
            let facts = try store.database.read { db in try AllTrackFacts(db) }
            let built = try store.database.read { db in try TrackFactsParts.build(db) }
            #expect(built == facts.referenceParts, "the scans build what the values would")
            var factParts = built
            factParts["artist_counts"] = .narrow([Int32](repeating: -1, count: facts.trackIDs.count))
            #expect(ArtistReferences(parts: SnapshotParts(factParts)) == nil)
            #expect(ArtistReferences(parts: SnapshotParts(built)) != nil)
            factParts = built
            factParts["song_codes"] = SnapshotBlob(factParts["song_codes"]!.data.dropLast(4))
            #expect(TrackFactsSnapshot(parts: SnapshotParts(factParts)) == nil, "a column a row short")
            #expect(TrackFactsSnapshot(parts: SnapshotParts(built)) != nil)

            // Read from the store, each part lands in its array directly: the same table.
            _ = try store.featureTable()  // saves the snapshot
            let stored = try store.database.read { db in
                try LibraryStore.snapshotParts(.features, in: db).flatMap(FeatureSnapshot.init(parts:))
            }
            // Bit patterns: a missing value is NaN, which is not equal to itself.
            func bits(_ table: FeatureTable?) -> [UInt32]? { table?.values.map(\.bitPattern) }
            #expect(stored?.table.trackIDs == good.table.trackIDs && bits(stored?.table) == bits(good.table))
            #expect(stored?.sourceMasks == good.sourceMasks && stored?.coverage == good.coverage)
            // A stored part cut short by a byte is no whole number of values: rebuilt, not trusted.
            try store.database.write { db in
                try db.execute(
                    sql:
                        "UPDATE snapshots SET data = substr(data, 1, length(data) - 1) WHERE name = 'features' AND part = 'values'"
                )
            }
            let rebuilt = try store.featureTable()
            #expect(rebuilt.trackIDs == good.table.trackIDs && bits(rebuilt) == bits(good.table))
        }
    }

    @Test func aReaderDoesNotWaitForAWriterToSaveASnapshot() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.sqlite"
            let store = try LibraryStore(path: path, options: .init(writeWait: nil))
            _ = try store.importFile(at: Self.tidytuesday)
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            let holder = try DatabaseQueue(path: path, configuration: configuration)
            try holder.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
            let clock = ContinuousClock()
            let started = clock.now
            let table = try store.featureTable()
            #expect(clock.now - started < .seconds(5))
            expectSameBits(table, try scanned(store))
            try holder.inDatabase { try $0.execute(sql: "COMMIT") }
            #expect(try snapshotRows(store, "features") == 0)
            _ = try store.featureTable()
            #expect(try snapshotRows(store, "features") == Self.featureParts)
        }
    }

    /// Every snapshot row: name, part and bytes (the cached space's description, JSON with sorted
    /// keys, included); that description also as the object it decodes to.
    func savedSnapshots(_ store: LibraryStore) throws -> (parts: [String], spaceAbout: NSDictionary?) {
        try store.database.read { db in
            var about: NSDictionary?
            var parts: [String] = []
            for row in try Row.fetchAll(db, sql: "SELECT name, part, data FROM snapshots ORDER BY name, part") {
                let (name, part, data): (String, String, Data) = (row["name"], row["part"], row["data"])
                if part == "space_about" { about = try JSONSerialization.jsonObject(with: data) as? NSDictionary }
                parts.append("\(name) \(part) \(data.base64EncodedString())")
            }
            return (parts, about)
        }
    }

    @Test func snapshotsBuiltSideBySideAreTheSnapshotsBuiltOneAfterTheOther() throws {
        try withStore { sideBySide in
            try withStore { oneByOne in
                _ = try sideBySide.importFile(at: Self.tidytuesday)
                _ = try oneByOne.importFile(at: Self.tidytuesday)
                let tracks = try count(oneByOne, "SELECT count(*) FROM tracks")
                // No limit: the facts are built on a reading connection beside the features.
                #expect(try sideBySide.prepareSnapshots() == .prepared)
                // Room for one build at a time: one after the other, on the writing connection.
                #expect(
                    try oneByOne.prepareSnapshots(memoryLimit: tracks * LibraryStore.snapshotBuildBytesPerTrack)
                        == .prepared
                )
                let saved = try savedSnapshots(sideBySide)
                #expect(saved.parts.contains { $0.hasPrefix("facts ") } && saved.spaceAbout != nil)
                let other = try savedSnapshots(oneByOne)
                #expect(saved.parts == other.parts)
                #expect(saved.spaceAbout == other.spaceAbout)
            }
        }
    }

    @Test func factsBuiltBeforeAnotherProcessCommitsAreBuiltAgain() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.sqlite"
            let store = try LibraryStore(path: path)
            _ = try store.importFile(at: Self.tidytuesday)
            // Started over the excerpt alone; another connection (another process) then adds tracks.
            let pending = try store.buildConcurrently(.facts, build: TrackFactsParts.build)
            _ = try LibraryStore(path: path).importFile(at: Self.liked)
            store.prepareSnapshot(.facts, builtConcurrently: pending, build: TrackFactsParts.build)
            let saved = try store.database.read { db in
                try Row.fetchAll(db, sql: "SELECT part, data FROM snapshots WHERE name = 'facts' AND part != 'format'")
                    .map { ($0["part"] as String, $0["data"] as Data) }
            }
            let built = try store.database.read { db in try TrackFactsParts.build(db) }
            #expect(!saved.isEmpty)
            #expect(Dictionary(uniqueKeysWithValues: saved) == built.mapValues(\.data))
        }
    }
}
