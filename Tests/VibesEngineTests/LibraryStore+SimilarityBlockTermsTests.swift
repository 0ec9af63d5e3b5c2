import Analytics
import Features
import Foundation
import GRDB
import Testing
import VibesEngine
import VibesTestSupport

@testable import Ingest

/// The similarity blocks' terms read in ordered passes are the very terms the dictionaries of sets
/// give, on real stores with tags of every kind, imported and built playlists, catch-alls and
/// tracks outside the space; and `import` leaves the `blocks` snapshot for the next command.
struct LibraryStoreSimilarityBlockTermsTests {
    static let excerpt = Fixtures.path("csv/tidytuesday-excerpt.csv")

    /// Imports `files`, runs `sql`, and compares the two builds over the library's space and over
    /// a part of it.
    static func expectSameTerms(
        importing files: [String],
        then sql: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            for file in files { _ = try store.importFile(at: file) }
            if !sql.isEmpty { try store.database.write { db in try db.execute(sql: sql) } }
            let ids = try store.featureTable().trackIDs
            for rows in [ids, ids.enumerated().filter { $0.offset % 3 != 1 }.map(\.element)] {
                let expected = try store.makeSimilarityBlocks(over: rows).map(\.sparseTermRows)
                let streamed = try #require(
                    try store.makeSimilarityBlockTerms(over: rows),
                    sourceLocation: sourceLocation
                )
                #expect(streamed == expected, sourceLocation: sourceLocation)
                #expect(!expected.isEmpty, sourceLocation: sourceLocation)
                // The names' tags of the same rows: those of every track, cut to the rows.
                let wanted = Set(rows)
                let names = try store.nameTags().filter { wanted.contains($0.key) }
                #expect(try store.nameTags(of: rows) == names && !names.isEmpty, sourceLocation: sourceLocation)
            }
        }
    }

    @Test func theExcerptGivesTheSameTerms() throws {
        try Self.expectSameTerms(importing: [Self.excerpt])
    }

    /// Tags every 7th, 3rd, 5th and 4th track with a tag heard in audio, two artist genres and a
    /// playlist tag named as an imported playlist.
    static let tagging = [
        ("audio-tag", "guitar", 7), ("artist-genre", "pop", 3), ("artist-genre", "zouk", 5),
        ("playlist", "Roadtrip", 4),
    ].map { kind, value, every in
        """
        INSERT OR IGNORE INTO track_tags (track_id, tag_id, source_id)
            SELECT track_id, (SELECT id FROM tags WHERE kind = '\(kind)' AND value = '\(value)'), 1
            FROM audio_features WHERE track_id % \(every) = 0 GROUP BY track_id;
        """
    }.joined(separator: "\n")

    /// Exportify playlists (a "Liked Songs" catch-all among them), artist genres, and a built
    /// playlist, which is no label.
    @Test func playlistsCatchAllsAndArtistGenresGiveTheSameTerms() throws {
        try Self.expectSameTerms(
            importing: [
                Self.excerpt, Fixtures.path("exportify/Liked_Songs.csv"), Fixtures.path("exportify/Older_Layout.csv"),
            ],
            then: """
                INSERT INTO playlists (origin_key, name, source, updated_at) VALUES ('test:a', 'Roadtrip', 'test', '');
                INSERT INTO playlists (origin_key, name, source, updated_at) VALUES ('built:b', 'Built', 'test', '');
                INSERT INTO playlist_items (playlist_id, position, track_id)
                    SELECT (SELECT id FROM playlists WHERE origin_key = 'test:a'), track_id, track_id
                    FROM audio_features WHERE track_id % 2 = 0 GROUP BY track_id;
                INSERT INTO playlist_items (playlist_id, position, track_id)
                    SELECT (SELECT id FROM playlists WHERE origin_key = 'built:b'), track_id, track_id
                    FROM audio_features GROUP BY track_id;
                INSERT INTO tags (kind, value) VALUES ('artist-genre', 'pop'), ('artist-genre', 'zouk'),
                    ('playlist', 'Roadtrip'), ('audio-tag', 'guitar');
                """ + Self.tagging
        )
    }

    /// A playlist of more than 30 % of the space is a catch-all and no term; one of fewer is.
    @Test func aLargePlaylistIsLeftOutAsTheBuildLeavesItOut() throws {
        try Self.expectSameTerms(
            importing: [Self.excerpt],
            then: """
                INSERT INTO playlists (origin_key, name, source, updated_at) VALUES ('test:big', 'Everything', 'test', '');
                INSERT INTO playlist_items (playlist_id, position, track_id)
                    SELECT (SELECT id FROM playlists WHERE origin_key = 'test:big'), track_id, track_id
                    FROM audio_features WHERE track_id % 5 != 0 GROUP BY track_id;
                """
        )
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
    func tidyTuesdayGivesTheSameTerms() throws {
        try Self.expectSameTerms(importing: [SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv")])
    }

    /// Expects the blocks of the library's space to be read from the snapshot, and to be those a
    /// build gives.
    static func expectSnapshotHoldsTheBuiltBlocks(
        _ store: LibraryStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let ids = try store.featureTable().trackIDs
        let read = try store.similarityBlockTerms(over: ids, saving: false) {
            Issue.record("built again, not read from the snapshot", sourceLocation: sourceLocation)
            return []
        }
        #expect(
            read == (try store.makeSimilarityBlocks(over: ids).map(\.sparseTermRows)),
            sourceLocation: sourceLocation
        )
    }

    /// After `prepareBlockSnapshot()`, the recommender reads the blocks a build gives.
    @Test func thePreparedSnapshotHoldsTheBuiltBlocks() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: Self.excerpt)
            #expect(try !store.hasBlockSnapshot())
            #expect(try store.prepareBlockSnapshot())
            #expect(try store.hasBlockSnapshot())
            #expect(try !store.prepareBlockSnapshot())
            try Self.expectSnapshotHoldsTheBuiltBlocks(store)
        }
    }

    /// Runs `body` on a store of the excerpt with its blocks snapshot prepared, then `sql` run.
    static func withPreparedExcerpt(then sql: String, _ body: (LibraryStore) throws -> Void) throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: Self.excerpt)
            #expect(try store.prepareBlockSnapshot())
            try store.database.write { db in try db.execute(sql: sql) }
            try body(store)
        }
    }

    /// A snapshot saved under the format before the tag block held the audio tags is not read:
    /// the blocks are built again, and saved under the current format.
    @Test func aSnapshotOfAnOlderFormatIsBuiltAgain() throws {
        try Self.withPreparedExcerpt(
            then: "UPDATE snapshots SET data = CAST('blocks-1' AS BLOB) WHERE name = 'blocks' AND part = 'format'"
        ) { store in
            #expect(try !store.hasBlockSnapshot())
            let ids = try store.featureTable().trackIDs
            var built = false
            _ = try store.similarityBlockTerms(over: ids, saving: false) {
                built = true
                return try store.makeSimilarityBlocks(over: ids).map(\.sparseTermRows)
            }
            #expect(built)
            #expect(try store.prepareBlockSnapshot())
            #expect(try store.hasBlockSnapshot())
        }
    }

    /// Tracks that gain or lose features without a change to the tags or playlists leave the
    /// snapshot over the old rows: `prepareBlockSnapshot()` builds it over the current ones.
    @Test func aSnapshotOverOtherRowsIsPreparedAgain() throws {
        try Self.withPreparedExcerpt(
            then: "DELETE FROM audio_features WHERE track_id = (SELECT min(track_id) FROM audio_features)"
        ) { store in
            #expect(try store.hasBlockSnapshot())
            #expect(try store.prepareBlockSnapshot())
            #expect(try !store.prepareBlockSnapshot())
            try Self.expectSnapshotHoldsTheBuiltBlocks(store)
        }
    }
}
