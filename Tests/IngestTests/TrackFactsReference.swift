import Features
import Foundation
import GRDB

@testable import Ingest

// A reference reader of every track's facts, as values: the tests compare the snapshot and its
// builder (`TrackFactsParts`) with it.

/// The facts of every track, in ID order, as the `facts` snapshot holds them.
struct AllTrackFacts {
    var trackIDs: [Int64] = []
    var facts: [TrackFacts] = []

    /// The row of `id`, by binary search.
    func index(of id: Int64) -> Int? {
        TrackIndex.binarySearch(id, inAscending: trackIDs)
    }

    /// Reads every track in two ordered scans.
    init(_ db: Database) throws {
        var artistNames: [Int64: String] = [:]
        try PreparedStatement(db, sql: "SELECT id, name FROM artists").forEachRow { row in
            artistNames[row.int64(0)] = row.string(1) ?? ""
        }
        try PreparedStatement(db, sql: "SELECT id, name, duration_ms, popularity FROM tracks ORDER BY id")
            .forEachRow { row in
                trackIDs.append(row.int64(0))
                var fact = TrackFacts()
                fact.name = row.string(1) ?? ""
                fact.durationMS = row.isNull(2) ? nil : Int(row.int64(2))
                fact.popularity = row.isNull(3) ? nil : Int(row.int64(3))
                facts.append(fact)
            }
        var index = 0
        try PreparedStatement(db, sql: "SELECT track_id, artist_id FROM track_artists ORDER BY track_id, position")
            .forEachRow { row in
                let id = row.int64(0)
                while index < trackIDs.count, trackIDs[index] < id { index += 1 }
                guard index < trackIDs.count, trackIDs[index] == id, let name = artistNames[row.int64(1)] else {
                    return
                }
                facts[index].artists.append(name)
            }
        for index in facts.indices where !facts[index].name.isEmpty {
            facts[index].songKey = Track.songKey(artist: facts[index].artists.first ?? "", title: facts[index].name)
        }
    }

    /// The snapshot's parts: IDs packed, the artists as a table of
    /// distinct names with each track's references into it, and the columns of
    /// ``TrackAttributeColumns``: each track's main artist (folded) and song key as codes, its
    /// duration (`Int32`, narrowed) and popularity (`Int8`), −1 for none. The song keys themselves are not
    /// kept (they were 22 MB of a million tracks' snapshot); ``TrackFactsSnapshot`` derives one
    /// from the name and the main artist when asked.
    var referenceParts: [String: SnapshotBlob] {
        var artistIndex: [String: Int32] = [:]
        var artistNames: [String] = []
        var artistKeyCodes: [Int32] = []
        var artistKeys = TrackAttributeColumns.Interner()
        var references: [Int32] = []
        var start = 0
        var artistCodes: [Int32] = []
        artistCodes.reserveCapacity(facts.count)
        for fact in facts {
            for artist in fact.artists {
                let reference =
                    artistIndex[artist]
                    ?? {
                        artistNames.append(artist)
                        artistIndex[artist] = Int32(artistNames.count - 1)
                        // Folded once per distinct name, not once per track.
                        artistKeyCodes.append(artistKeys.code(Track.normalizedName(artist)))
                        return Int32(artistNames.count - 1)
                    }()
                references.append(reference)
            }
            artistCodes.append(references.count > start ? artistKeyCodes[Int(references[start])] : -1)
            start = references.count
        }
        var songs = TrackAttributeColumns.Interner()
        let songCodes = facts.map { songs.code($0.songKey) }
        let artists = PackedStrings.parts(artistNames)
        return [
            "track_ids": .ascending(trackIDs),
            "duration_ms": .narrow(facts.map { fact in fact.durationMS.map { Int32(clamping: $0) } ?? -1 }),
            "popularity": SnapshotBlob(facts.map { fact in fact.popularity.map { Int8(clamping: $0) } ?? -1 }),
            "artists": artists.bytes, "artist_ends": artists.ends,
            "artist_references": .narrow(references), "artist_counts": .narrow(facts.map { Int32($0.artists.count) }),
            "artist_codes": .narrow(artistCodes), "song_codes": .narrow(songCodes),
        ]
    }
}
