import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// The cached scaled space: the same bits as building it, used only for the table and schema it
/// was built from, and gone with the `features` snapshot.
struct SpaceCacheTests {
    static let tidytuesday = Fixtures.path("csv/tidytuesday-excerpt.csv")
    static let liked = Fixtures.path("exportify/Liked_Songs.csv")

    func expectSame(_ a: FeatureSpace, _ b: FeatureSpace, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.matrix.values.elements.map(\.bitPattern) == b.matrix.values.elements.map(\.bitPattern))
        #expect(a.matrix.trackIDs == b.matrix.trackIDs && a.matrix.columnNames == b.matrix.columnNames)
        #expect(a.scaling == b.scaling, sourceLocation: sourceLocation)
        #expect(a.tableRows == b.tableRows && a.excludedTrackCount == b.excludedTrackCount)
        #expect(a.missingCounts == b.missingCounts && a.imputedCounts == b.imputedCounts)
    }

    func cachedParts(_ store: LibraryStore) throws -> Int {
        try store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots WHERE part LIKE 'space\\_%' ESCAPE '\\'") ?? 0
        }
    }

    /// Marks the cached values so that a read from the cache can be told from a build.
    func markCachedValues(_ store: LibraryStore) throws {
        try rewriteSnapshotFloats(store, name: "features", part: "space_values") { $0[0] = 1234.5 }
    }

    @Test func theCacheGivesTheBuiltBitsAndIsReadTheSecondTime() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            let table = try store.featureTable()
            let schema = FeatureSchema.default
            let built = schema.makeSpace(from: table)
            let first = try store.featureSpace(of: table, schema: schema)
            expectSame(first, built)
            #expect(try cachedParts(store) == 3)
            let second = try store.featureSpace(of: table, schema: schema)
            expectSame(second, built)
            try markCachedValues(store)
            #expect(try store.featureSpace(of: table, schema: schema).matrix.values.elements[0] == 1234.5)
        }
    }

    @Test func anotherSchemaOrTableIsBuiltNotRead() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            let table = try store.featureTable()
            _ = try store.featureSpace(of: table, schema: .default)
            try markCachedValues(store)
            var weights = SimilarityWeights.default
            weights.features[.energy] = 2
            let weighted = FeatureSchema.default.applying(weights)
            expectSame(try store.featureSpace(of: table, schema: weighted), weighted.makeSpace(from: table))
            // One space is kept: the weighted one replaced the default one.
            try markCachedValues(store)
            let cut = FeatureTable(trackIDs: Array(table.trackIDs.dropLast()), values: Array(table.values.dropLast(12)))
            expectSame(try store.featureSpace(of: cut, schema: weighted), weighted.makeSpace(from: cut))
            var changed = table.values
            changed[1] = changed[1] == 0.5 ? 0.25 : 0.5
            let other = FeatureTable(trackIDs: table.trackIDs, values: changed)
            #expect(other.contentHash() != table.contentHash())
            expectSame(try store.featureSpace(of: other, schema: weighted), weighted.makeSpace(from: other))
        }
    }

    @Test func aChangeOfFeaturesDeletesTheCache() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            _ = try store.featureSpace(of: try store.featureTable(), schema: .default)
            #expect(try cachedParts(store) == 3)
            _ = try store.importFile(at: Self.liked)
            #expect(try cachedParts(store) == 0)
            let table = try store.featureTable()
            expectSame(
                try store.featureSpace(of: table, schema: .default),
                FeatureSchema.default.makeSpace(from: table)
            )
        }
    }

    @Test func damagedPartsAreBuiltAgain() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            let table = try store.featureTable()
            _ = try store.featureSpace(of: table, schema: .default)
            try store.database.write { db in
                try db.execute(
                    sql: "UPDATE snapshots SET data = ? WHERE part = 'space_rows'",
                    arguments: [PackedArray.data([Int32](repeating: 0, count: table.rowCount))]
                )
            }
            expectSame(
                try store.featureSpace(of: table, schema: .default),
                FeatureSchema.default.makeSpace(from: table)
            )
        }
    }

    @Test func preparingSnapshotsCachesTheDefaultSpace() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            try store.prepareSnapshots()
            #expect(try cachedParts(store) == 3)
            let table = try store.featureTable(scope: .all)
            expectSame(
                try store.featureSpace(of: table, schema: .default),
                FeatureSchema.default.makeSpace(from: table)
            )
            try markCachedValues(store)
            let space = try store.featureSpace(of: try store.featureTable(scope: .all), schema: .default)
            #expect(space.matrix.values.elements[0] == 1234.5, "read from the cache")
            // Prepared again, the cached space is kept, not built again.
            try store.prepareSnapshots()
            #expect(try store.featureSpace(of: table, schema: .default).matrix.values.elements[0] == 1234.5)
        }
    }

    @Test func snapshotsPastTheMemoryLimitAreLeftToTheNextCommand() throws {
        func snapshotRows(_ store: LibraryStore) throws -> Int {
            try store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots") ?? 0 }
        }
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            let tracks = try store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks") ?? 0 }
            let needed = tracks * LibraryStore.snapshotBuildBytesPerTrack
            #expect(try tracks > 0 && snapshotRows(store) == 0)
            // One byte short: nothing is built.
            #expect(
                try store.prepareSnapshots(memoryLimit: needed - 1)
                    == .deferred(tracks: tracks, neededBytes: needed, limitBytes: needed - 1)
            )
            #expect(try snapshotRows(store) == 0)
            // A command builds what is missing: the same space as a build from the table.
            let table = try store.featureTable(scope: .all)
            expectSame(
                try store.featureSpace(of: table, schema: .default),
                FeatureSchema.default.makeSpace(from: table)
            )
            #expect(try snapshotRows(store) > 0)
        }
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            let tracks = try store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks") ?? 0 }
            // Exactly enough: built.
            #expect(
                try store.prepareSnapshots(memoryLimit: tracks * LibraryStore.snapshotBuildBytesPerTrack) == .prepared
            )
            #expect(try cachedParts(store) == 3)
            let built = try snapshotRows(store)
            // Current snapshots need nothing more, whatever the limit.
            try markCachedValues(store)
            #expect(try store.prepareSnapshots(memoryLimit: 0) == .prepared)
            #expect(try snapshotRows(store) == built)
            let table = try store.featureTable(scope: .all)
            #expect(try store.featureSpace(of: table, schema: .default).matrix.values.elements[0] == 1234.5)
            // A change to the library makes them stale again: over the limit, they wait.
            _ = try store.importFile(at: Self.liked)
            #expect(try snapshotRows(store) == 0)
            if case .deferred = try store.prepareSnapshots(memoryLimit: 0) {
            } else {
                Issue.record("stale snapshots past the limit were built")
            }
        }
    }

    @Test func preparingSnapshotsBesideACurrentFeatureSnapshotBuildsOnlyTheSpace() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.liked)
            // A command read the table: the features snapshot is current, the space absent.
            let table = try store.featureTable(scope: .all)
            let snapshotRowIDs = try store.database.read { db in
                try Int64.fetchAll(db, sql: "SELECT rowid FROM snapshots WHERE name = 'features' ORDER BY rowid")
            }
            #expect(try cachedParts(store) == 0 && !snapshotRowIDs.isEmpty)
            try store.prepareSnapshots()
            #expect(try cachedParts(store) == 3)
            let kept = try store.database.read { db in
                try Int64.fetchAll(
                    db,
                    sql: """
                        SELECT rowid FROM snapshots WHERE name = 'features' AND part NOT LIKE 'space\\_%' ESCAPE '\\'
                        ORDER BY rowid
                        """
                )
            }
            #expect(kept == snapshotRowIDs, "the snapshot's own parts were not written again")
            expectSame(
                try store.featureSpace(of: table, schema: .default),
                FeatureSchema.default.makeSpace(from: table)
            )
        }
    }

    @Test func theSpaceBuiltAColumnAtATimeIsTheSpaceOfTheTable() throws {
        // A table with every kind of gap: missing cells in every column, sentinels, whole rows
        // missing, a constant column.
        var random = SplitMix64(seed: 11)
        var table = FeatureTable()
        for row in 0..<6000 {
            var features = AudioFeatures()
            for feature in AudioFeature.allCases {
                let range = feature.validRange
                var value =
                    range.lowerBound + Double(random.next() % 1001) / 1000 * (range.upperBound - range.lowerBound)
                if feature.isDiscrete { value = value.rounded(.down) }
                if feature == .timeSignature { value = 4 }
                features[feature] = random.next() % 40 == 0 || row % 500 == 0 ? nil : value
            }
            if row % 97 == 0 { features[.key] = -1 }
            table.append(trackID: Int64(row * 2 + 5), features: features)
        }
        let packed = PackedColumns.dictionary(table.values, columnCount: FeatureTable.columnCount)
        var weights = SimilarityWeights.default
        weights.features[.energy] = 2.5
        var schemas = [FeatureSchema.default, FeatureSchema.default.applying(weights)]
        for scaling in [FeatureSchema.Scaling.zScore, .minMax, .raw] {
            var schema = FeatureSchema.default
            schema.scaling = scaling
            schemas.append(schema)
        }
        var imputing = FeatureSchema.default
        imputing.imputedFeatures = [.speechiness, .tempo]
        schemas.append(imputing)
        for schema in schemas {
            let built = schema.makeSpace(from: table)
            let key = LibraryStore.spaceKey(table: table, schema: schema)
            let streamed = try #require(
                LibraryStore.buildSpace(values: packed, schema: schema, contentHash: table.contentHash())
            )
            let whole = try #require(LibraryStore.encodeSpace(built, key: key))
            #expect(streamed["space_values"] == whole["space_values"], "\(schema.spaceKey)")
            #expect(streamed["space_rows"] == whole["space_rows"])
            // The same JSON, byte for byte: its keys are sorted.
            #expect(streamed["space_about"] == whole["space_about"])
            #expect(try JSONSerialization.jsonObject(with: try #require(streamed["space_about"]?.data)) is NSDictionary)
            expectSame(try #require(LibraryStore.decodeSpace(SnapshotParts(streamed), key: key, table: table)), built)
        }
        #expect(schemas.last.map { $0.makeSpace(from: table).imputedCounts.isEmpty } == false)
        #expect(LibraryStore.buildSpace(values: packed.dropLast(), schema: .default, contentHash: "") == nil)
    }

    @Test func schemaKeysDoNotDependOnSetOrder() {
        let schema = FeatureSchema.default
        var copy = schema
        copy.imputedFeatures = Set(schema.imputedFeatures.reversed())
        #expect(copy.spaceKey == schema.spaceKey)
        var scaled = schema
        scaled.scaling = .zScore
        #expect(scaled.spaceKey != schema.spaceKey)
    }
}
