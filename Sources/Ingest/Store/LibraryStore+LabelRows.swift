import Features
import GRDB

/// Which labels of a track ``LibraryStore/labelRows(_:over:)`` gathers into one set: its tags of
/// some kinds and, optionally, the names of the imported playlists it is in.
public struct LabelGroup: Hashable, Sendable {
    /// The tag kinds whose values are labels, such as `genre`.
    public var tagKinds: Set<String>
    /// Whether the names of the imported playlists (not those built here) are labels too.
    public var includesImportedPlaylists: Bool

    public init(tagKinds: Set<String>, includesImportedPlaylists: Bool = false) {
        self.tagKinds = tagKinds
        self.includesImportedPlaylists = includesImportedPlaylists
    }
}

/// The labels of each row of a similarity space, for one ``LabelGroup``: what
/// ``LibraryStore/trackLabels(kind:)`` gives its tracks, as numbered rows instead of a dictionary
/// of sets.
public struct LabelRows: Sendable {
    /// The distinct label texts, ascending by `String` order (labels equal as strings are one).
    public var names: [String]
    /// Where each row's labels start in ``rowLabels``, and where the last ends.
    public var rowStarts: [Int]
    /// The labels of every row, end to end, each an index into ``names``, strictly ascending
    /// within a row (so in the order of `set.sorted()` of the row's texts).
    public var rowLabels: [Int32]
    /// The tag kinds of the group that any track of the store carries, in the space or not.
    public var kindsPresent: Set<String>
}

extension LibraryStore {
    /// The labels of each of `trackIDs` for each group, read in one ordered pass over the tags and
    /// one over the playlist items, with no dictionary or set per track.
    ///
    /// On a million tracks, the dictionaries of sets that ``trackLabels(kind:)`` builds held most
    /// of the 700 MB that building the similarity blocks took; these rows hold a few bytes a label.
    ///
    /// - Parameters:
    ///   - groups: The groups; no tag kind may be in two of them.
    ///   - trackIDs: The rows, ascending.
    /// - Returns: The rows of each group, or `nil` when two different texts of a group are equal
    ///   as strings (canonically equivalent Unicode), whose merging a set of texts decides by
    ///   the order it meets them in; the caller then builds from the sets.
    /// - Throws: ``StoreError`` when the store cannot be read.
    /// - Complexity: O(*t* + *p* + *L* log *L*) for *t* tag links, *p* playlist items and *L* distinct
    ///   labels.
    public func labelRows(_ groups: [LabelGroup], over trackIDs: [Int64]) throws -> [LabelRows]? {
        precondition(zip(trackIDs, trackIDs.dropFirst()).allSatisfy { $0 < $1 }, "ascending track IDs")
        return try read { db in
            // Every label text of each group, numbered as met; then ranked by `String` order.
            var texts = [[String]](repeating: [], count: groups.count)
            var textOfTag: [Int64: (group: Int32, text: Int32, kind: String)] = [:]
            try PreparedStatement(db, sql: "SELECT id, kind, value FROM tags").forEachRow { row in
                let kind = row.text(1)
                guard let group = groups.firstIndex(where: { $0.tagKinds.contains(kind) }) else { return }
                textOfTag[row.int64(0)] = (Int32(group), Int32(texts[group].count), kind)
                texts[group].append(row.text(2))
            }
            var textOfPlaylist: [Int64: (group: Int32, text: Int32)] = [:]
            for (group, labels) in groups.enumerated() where labels.includesImportedPlaylists {
                let sql = "SELECT id, name FROM playlists WHERE origin_key NOT LIKE 'built:%'"
                try PreparedStatement(db, sql: sql).forEachRow { row in
                    textOfPlaylist[row.int64(0)] = (Int32(group), Int32(texts[group].count))
                    texts[group].append(row.text(1))
                }
            }
            var rankings: [(names: [String], rankOfText: [Int32])] = []
            for group in texts {
                guard let ranking = Self.ranking(of: group) else { return nil }
                rankings.append(ranking)
            }
            var kindsPresent = [Set<String>](repeating: [], count: groups.count)
            var links = [LabelLinks](repeating: LabelLinks(), count: groups.count)
            var cursor = RowCursor(trackIDs: trackIDs)
            try PreparedStatement(db, sql: "SELECT track_id, tag_id FROM track_tags ORDER BY track_id").forEachRow {
                guard let tag = textOfTag[$0.int64(1)] else { return }
                kindsPresent[Int(tag.group)].insert(tag.kind)
                guard let row = cursor.row(of: $0.int64(0)) else { return }
                links[Int(tag.group)].append(row: row, label: rankings[Int(tag.group)].rankOfText[Int(tag.text)])
            }
            if !textOfPlaylist.isEmpty {
                cursor = RowCursor(trackIDs: trackIDs)
                let sql = "SELECT track_id, playlist_id FROM playlist_items ORDER BY track_id"
                var playlistLinks = [LabelLinks](repeating: LabelLinks(), count: groups.count)
                try PreparedStatement(db, sql: sql).forEachRow {
                    guard let playlist = textOfPlaylist[$0.int64(1)], let row = cursor.row(of: $0.int64(0)) else {
                        return
                    }
                    let label = rankings[Int(playlist.group)].rankOfText[Int(playlist.text)]
                    playlistLinks[Int(playlist.group)].append(row: row, label: label)
                }
                for group in groups.indices { links[group] = links[group].merged(with: playlistLinks[group]) }
            }
            return groups.indices.map { group in
                let (starts, labels) = links[group].rows(count: trackIDs.count)
                return LabelRows(
                    names: rankings[group].names,
                    rowStarts: starts,
                    rowLabels: labels,
                    kindsPresent: kindsPresent[group]
                )
            }
        }
    }

    /// The kind and value of every tag of `kinds` the store holds, in no particular order: one
    /// pass over the tags themselves (a few thousand), none over the tracks' links to them.
    public func tagValues(ofKinds kinds: Set<String>) throws -> [(kind: String, value: String)] {
        try read { db in
            var values: [(kind: String, value: String)] = []
            try PreparedStatement(db, sql: "SELECT kind, value FROM tags").forEachRow { row in
                let kind = row.text(0)
                if kinds.contains(kind) { values.append((kind, row.text(1))) }
            }
            return values
        }
    }

    /// The distinct texts of `texts` in `String` order, and the rank of each text among them;
    /// `nil` when two texts with different bytes are equal as strings.
    private static func ranking(of texts: [String]) -> (names: [String], rankOfText: [Int32])? {
        let order = texts.indices.sorted { texts[$0] < texts[$1] }
        var names: [String] = []
        var rankOfText = [Int32](repeating: 0, count: texts.count)
        for index in order {
            if let last = names.last, last == texts[index] {
                guard last.utf8.elementsEqual(texts[index].utf8) else { return nil }
            } else {
                names.append(texts[index])
            }
            rankOfText[index] = Int32(names.count - 1)
        }
        return (names, rankOfText)
    }
}

/// Finds the row of each track ID of a scan in track-ID order, by walking the ascending rows
/// beside it.
private struct RowCursor {
    let trackIDs: [Int64]
    var next = 0

    /// The row of `trackID`, or `nil` when it is not a row; IDs must come in ascending order.
    mutating func row(of trackID: Int64) -> Int32? {
        while next < trackIDs.count, trackIDs[next] < trackID { next += 1 }
        return next < trackIDs.count && trackIDs[next] == trackID ? Int32(next) : nil
    }
}

/// (row, label) pairs in ascending row order.
private struct LabelLinks {
    var rows: [Int32] = []
    var labels: [Int32] = []

    mutating func append(row: Int32, label: Int32) {
        rows.append(row)
        labels.append(label)
    }

    /// Both lists' pairs, still in row order.
    func merged(with other: LabelLinks) -> LabelLinks {
        guard !other.rows.isEmpty else { return self }
        guard !rows.isEmpty else { return other }
        var merged = LabelLinks()
        merged.rows.reserveCapacity(rows.count + other.rows.count)
        merged.labels.reserveCapacity(rows.count + other.rows.count)
        var (mine, theirs) = (0, 0)
        while mine < rows.count || theirs < other.rows.count {
            if theirs == other.rows.count || (mine < rows.count && rows[mine] <= other.rows[theirs]) {
                merged.append(row: rows[mine], label: labels[mine])
                mine += 1
            } else {
                merged.append(row: other.rows[theirs], label: other.labels[theirs])
                theirs += 1
            }
        }
        return merged
    }

    /// The labels of each of `count` rows, ascending and distinct within a row.
    func rows(count: Int) -> (starts: [Int], labels: [Int32]) {
        var starts = [Int](repeating: 0, count: count + 1)
        var result: [Int32] = []
        result.reserveCapacity(labels.count)
        var position = 0
        for row in 0..<count {
            let first = result.count
            while position < rows.count, rows[position] == Int32(row) {
                result.append(labels[position])
                position += 1
            }
            if result.count - first > 1 {
                result[first...].sort()
                var kept = first + 1
                for index in (first + 1)..<result.count where result[index] != result[kept - 1] {
                    result[kept] = result[index]
                    kept += 1
                }
                result.removeLast(result.count - kept)
            }
            starts[row + 1] = result.count
        }
        return (starts, result)
    }
}
