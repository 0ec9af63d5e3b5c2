import Analytics
import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest
@testable import VibesEngine

/// The numbered name tags `cluster` reads (from the `blocks` snapshot, or in ordered passes over
/// the tags) are the very tags of ``LibraryStore/nameTags()``, and name the vibes exactly as those
/// sets of texts do, on real stores with genres, subgenres, artist genres and tags heard in audio.
struct LibraryStoreVibeNameTagsTests {
    /// The tags of each row of `rows` as texts.
    static func texts(of rows: VibeNames.TagRows) -> [Set<String>] {
        (0..<rows.rowCount).map { row in
            Set(rows.rowTags[rows.rowStarts[row]..<rows.rowStarts[row + 1]].map { rows.names[Int($0)] })
        }
    }

    /// Imports `files`, runs `sql`, and compares the tags read without and with the snapshot, over
    /// the library and over a part of it, with the sets; then the names of eight vibes.
    static func expectSameNames(
        importing files: [String],
        then sql: String = "",
        readsSnapshot: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            for file in files { _ = try store.importFile(at: file) }
            if !sql.isEmpty { try await store.database.write { db in try db.execute(sql: sql) } }
            let sets = try store.nameTags()
            #expect(!sets.isEmpty, sourceLocation: sourceLocation)
            let table = try store.featureTable(scope: .library)
            let ids = table.trackIDs
            let part = ids.enumerated().filter { $0.offset % 3 != 1 }.map(\.element)
            #expect(try store.nameTagRowsFromBlockSnapshot(of: ids) == nil, sourceLocation: sourceLocation)
            for rows in [ids, part] {
                let expected = rows.map { sets[$0] ?? [] }
                #expect(Self.texts(of: try store.nameTagRows(of: rows)) == expected, sourceLocation: sourceLocation)
            }
            #expect(try store.prepareBlockSnapshot(), sourceLocation: sourceLocation)
            for rows in [ids, part] {
                let expected = rows.map { sets[$0] ?? [] }
                let cut = try store.nameTagRowsFromBlockSnapshot(of: rows)
                if readsSnapshot {
                    let cut = try #require(cut, sourceLocation: sourceLocation)
                    #expect(Self.texts(of: cut) == expected, sourceLocation: sourceLocation)
                } else {
                    #expect(cut == nil, sourceLocation: sourceLocation)
                }
                #expect(Self.texts(of: try store.nameTagRows(of: rows)) == expected, sourceLocation: sourceLocation)
            }

            var settings = VibeClustering.Settings(schema: .default, clusterCount: .fixed(8))
            settings.tags = sets
            let fromSets = try await VibeClustering.cluster(table, settings: settings)
            settings.tags = [:]
            settings.tagRows = try store.nameTagRows(of: ids)
            let fromRows = try await VibeClustering.cluster(table, settings: settings)
            #expect(
                fromRows.vibes.map(\.profile.name) == fromSets.vibes.map(\.profile.name),
                sourceLocation: sourceLocation
            )
            // Some vibe carries a tag, so the tags are what was compared.
            let tags = Set(sets.values.flatMap { $0 })
            #expect(
                fromSets.vibes.contains { vibe in tags.contains { vibe.profile.name.hasSuffix(" " + $0) } },
                "\(fromSets.vibes.map(\.profile.name))",
                sourceLocation: sourceLocation
            )
        }
    }

    static let excerpt = Fixtures.path("csv/tidytuesday-excerpt.csv")

    /// A row the snapshot lacks (a track outside the space it was built over) gets no tags when
    /// it is not needed, and sends the read to the tags when it is.
    @Test func rowsTheSnapshotLacksAreNamedOnlyWhenNotNeeded() async throws {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: Self.excerpt)
            #expect(try store.prepareBlockSnapshot())
            let ids = try store.featureTable(scope: .library).trackIDs
            let sets = try store.nameTags()
            let rows = ids + [try #require(ids.last) + 1_000_000]
            let everyKnownRow = (0..<Int32(ids.count)).map { $0 }
            let cut = try #require(try store.nameTagRowsFromBlockSnapshot(of: rows, needing: everyKnownRow))
            #expect(Self.texts(of: cut) == ids.map { sets[$0] ?? [] } + [[]])
            #expect(try store.nameTagRowsFromBlockSnapshot(of: rows) == nil)
            #expect(try store.nameTagRowsFromBlockSnapshot(of: rows, needing: [Int32(ids.count)]) == nil)
            #expect(Self.texts(of: try store.nameTagRows(of: rows, needing: everyKnownRow)) == Self.texts(of: cut))
        }
    }

    @Test func theExcerptNamesAsTheSetsDo() async throws {
        try await Self.expectSameNames(importing: [Self.excerpt])
    }

    /// Artist genres and a tag heard in audio, which names no vibe and which the snapshot's tag
    /// block holds beside the genres.
    @Test func artistGenresAndAudioTagsNameAsTheSetsDo() async throws {
        try await Self.expectSameNames(
            importing: [Self.excerpt],
            then: """
                INSERT INTO tags (kind, value) VALUES ('artist-genre', 'pop'), ('artist-genre', 'zouk'),
                    ('playlist', 'Roadtrip'), ('audio-tag', 'guitar');
                """ + LibraryStoreSimilarityBlockTermsTests.tagging
        )
    }

    /// An audio tag with a genre's text: the block's one term cannot say which a track has, so the
    /// tags are read from the store instead.
    @Test func anAudioTagWithAGenresTextIsReadFromTheTags() async throws {
        try await Self.expectSameNames(
            importing: [Self.excerpt],
            then: """
                INSERT INTO tags (kind, value) VALUES ('audio-tag', 'pop');
                INSERT OR IGNORE INTO track_tags (track_id, tag_id, source_id)
                    SELECT track_id, (SELECT id FROM tags WHERE kind = 'audio-tag' AND value = 'pop'), 1
                    FROM audio_features WHERE track_id % 4 = 0 GROUP BY track_id;
                """,
            readsSnapshot: false
        )
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
    func tidyTuesdayNamesAsTheSetsDo() async throws {
        try await Self.expectSameNames(importing: [SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv")])
    }

    /// Rows the snapshot was not built over are not cut from it.
    @Test func tracksOutsideTheSnapshotAreReadFromTheTags() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: Self.excerpt)
            #expect(try store.prepareBlockSnapshot())
            let ids = try store.featureTable(scope: .library).trackIDs
            let outside = ids + [(ids.last ?? 0) + 1]
            #expect(try store.nameTagRowsFromBlockSnapshot(of: outside) == nil)
            let sets = try store.nameTags()
            #expect(Self.texts(of: try store.nameTagRows(of: outside)) == outside.map { sets[$0] ?? [] })
        }
    }
}
