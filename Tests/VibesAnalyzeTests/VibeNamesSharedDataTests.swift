import Features
import Foundation
import Ingest
import Testing
import VibesTestSupport

@testable import Analytics

/// Vibe names on real labelled playlists: a calm, piano, classical or lo-fi collection is named
/// with a calm word, a party or workout playlist with an energetic one, a sad one with a sad one.
///
/// Each playlist is profiled as one vibe of its dataset's library (the rest of the library the
/// other), so its name is what `cluster` would call a vibe holding exactly those tracks. The
/// playlist names choose the playlists and are never seen by the naming. The baseline is the
/// naming against the library alone, by the valence–energy quadrant.
struct VibeNamesSharedDataTests {
    enum Kind: String, CaseIterable {
        case calm, energetic, sad

        /// The playlist names of this kind.
        var pattern: String {
            switch self {
            case .calm: "ambient|classical|\\bpiano|sleep|study|lo-?fi"
            case .energetic: "party|workout|gym|fitness"
            case .sad: "\\bsad\\b|\\bcry|heartbreak|melanchol"
            }
        }

        /// The opening words that fit.
        var words: Set<String> {
            switch self {
            case .calm: ["Calm", "Serene", "Mellow"]
            case .energetic: ["Upbeat", "Euphoric", "Energetic", "Intense", "Angry"]
            case .sad: ["Wistful", "Melancholic", "Dark"]
            }
        }
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason), .timeLimit(.minutes(10)))
    func labelledPlaylistsCarryAFittingMoodWord() async throws {
        let datasets = [
            [
                "spotify-music-dataset-2024/high_popularity_spotify_data.csv",
                "spotify-music-dataset-2024/low_popularity_spotify_data.csv",
            ],
            ["tidytuesday-2020-01-21/spotify_songs.csv"],
        ]
        var results: [(kind: Kind, playlist: String, name: String, fits: Bool, baselineFits: Bool)] = []
        for files in datasets {
            try withTemporaryDirectory { folder in
                let store = try LibraryStore(path: folder + "/library.sqlite")
                for file in files { _ = try store.importFile(at: SharedData.path(file)) }
                let table = try store.featureTable()
                var members: [String: [Int64]] = [:]
                for (track, playlists) in try store.trackLabels(kind: "playlist") {
                    for playlist in playlists { members[playlist, default: []].append(track) }
                }
                for (playlist, tracks) in members.sorted(by: { $0.key < $1.key }) where tracks.count >= 10 {
                    guard
                        let kind = Kind.allCases.first(where: {
                            playlist.range(of: $0.pattern, options: [.regularExpression, .caseInsensitive]) != nil
                        })
                    else { continue }
                    let inside = Set(tracks)
                    let rows = table.trackIDs.indices.map { Int32($0) }
                    let labels = table.trackIDs.map { inside.contains($0) ? Int32(0) : 1 }
                    let profile = VibeNames.profiles(table: table, tableRows: rows, labels: labels, clusterCount: 2)[0]
                    let word = String(profile.name.split(separator: " ").first ?? "")
                    let baseline = Mood.adjective(
                        valence: profile.zScores["valence"] ?? 0,
                        energy: profile.zScores["energy"] ?? 0
                    )
                    results.append(
                        (kind, playlist, profile.name, kind.words.contains(word), kind.words.contains(baseline))
                    )
                }
            }
        }
        let report = results.map {
            "\($0.fits ? "fits" : "MISS") \($0.kind.rawValue): \($0.playlist) → \($0.name)"
                + ($0.baselineFits ? "" : " (baseline misses)")
        }
        .joined(separator: "\n")
        for kind in Kind.allCases {
            let ofKind = results.filter { $0.kind == kind }
            #expect(!ofKind.isEmpty, "no \(kind) playlist to judge:\n\(report)")
            let fitting = ofKind.filter(\.fits).count
            #expect(
                Double(fitting) >= 0.75 * Double(ofKind.count),
                "\(kind): \(fitting) of \(ofKind.count) fit\n\(report)"
            )
        }
        let fitting = results.filter(\.fits).count
        let baselineFitting = results.filter(\.baselineFits).count
        #expect(Double(fitting) >= 0.8 * Double(results.count), "\(fitting) of \(results.count) fit\n\(report)")
        let difference = PairedBootstrap.meanDifference(
            results.map { $0.fits ? 1 : 0 },
            results.map { $0.baselineFits ? 1 : 0 },
            seed: 42
        )
        #expect(difference.lower > 0, "the baseline names \(baselineFitting) fittingly\n\(report)")
        print(
            "\(fitting) of \(results.count) playlists carry a fitting mood word (library-only baseline: \(baselineFitting));"
                + " difference \(difference.estimate), 95 % CI [\(difference.lower), \(difference.upper)]"
        )
        print(report)
    }

    /// Playlists whose name says their genre ("Rock Classics" of genre rock, "Trap Nation" of
    /// subgenre trap) get that genre in the name of the vibe holding them.
    ///
    /// Each playlist is profiled as one vibe against the rest of its dataset's library, as above.
    /// The tags named from are artist genres made without the playlist itself: a track's tags are
    /// the genre and subgenre of the *other* playlists holding its artist's tracks, as Spotify's
    /// artist genres come from elsewhere than the playlist. The dataset's labels of the playlist
    /// never reach the naming. A name fits when it holds any of the playlist's own genre and
    /// subgenre that its title holds ("Alternative Rock", subgenre alternative and genre rock, fits
    /// "Energetic rock"). The tags know a genre when a tenth of the playlist's tracks carry it: most
    /// of Kaggle's playlists have a subgenre of their own and artists in no other playlist, so
    /// their vibes fall back to sound words.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason), .timeLimit(.minutes(10)))
    func genreEvidentPlaylistsGetTheirGenreInTheName() async throws {
        let datasets = [
            [
                "spotify-music-dataset-2024/high_popularity_spotify_data.csv",
                "spotify-music-dataset-2024/low_popularity_spotify_data.csv",
            ],
            ["tidytuesday-2020-01-21/spotify_songs.csv"],
        ]
        var results: [(dataset: String, playlist: String, genre: String, name: String, fits: Bool, isKnown: Bool)] =
            []
        for files in datasets {
            let dataset = String(files[0].prefix { $0 != "/" })
            try withTemporaryDirectory { folder in
                let store = try LibraryStore(path: folder + "/library.sqlite")
                for file in files { _ = try store.importFile(at: SharedData.path(file)) }
                let table = try store.featureTable()
                let artists = try store.trackAttributeColumns(for: table.trackIDs).artistCodes
                let genres = try store.trackLabels(kind: "genre")
                let subgenres = try store.trackLabels(kind: "subgenre")
                var members: [String: [Int]] = [:]
                let playlistsOfTrack = try store.trackLabels(kind: "playlist")
                for (row, id) in table.trackIDs.enumerated() {
                    for playlist in playlistsOfTrack[id] ?? [] { members[playlist, default: []].append(row) }
                }
                // A playlist's genre and subgenre: the most common among its tracks (ties by text).
                func majority(_ rows: [Int], _ labels: [Int64: Set<String>]) -> String? {
                    var counts: [String: Int] = [:]
                    for row in rows {
                        for label in labels[table.trackIDs[row]] ?? [] { counts[label, default: 0] += 1 }
                    }
                    return counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
                }
                var labelsOfPlaylist: [String: Set<String>] = [:]
                var playlistsOfArtist: [Int32: [String: Int]] = [:]
                for (playlist, rows) in members {
                    labelsOfPlaylist[playlist] = Set(
                        [majority(rows, genres), majority(rows, subgenres)].compactMap { $0 }
                    )
                    for row in rows where artists[row] >= 0 {
                        playlistsOfArtist[artists[row], default: [:]][playlist, default: 0] += 1
                    }
                }
                for (playlist, rows) in members.sorted(by: { $0.key < $1.key }) where rows.count >= 10 {
                    let own = labelsOfPlaylist[playlist] ?? []
                    let title = playlist.lowercased()
                    let evident = own.sorted().filter { title.contains($0.lowercased()) }
                    guard !evident.isEmpty else { continue }
                    // Artist genres without this playlist.
                    var tags: [Int64: Set<String>] = [:]
                    var tagsOfArtist: [Int32: Set<String>] = [:]
                    for (artist, playlists) in playlistsOfArtist {
                        var set = Set<String>()
                        for (other, _) in playlists where other != playlist {
                            set.formUnion(labelsOfPlaylist[other] ?? [])
                        }
                        if !set.isEmpty { tagsOfArtist[artist] = set }
                    }
                    for (row, id) in table.trackIDs.enumerated() where artists[row] >= 0 {
                        if let set = tagsOfArtist[artists[row]] { tags[id] = set }
                    }
                    let inside = Set(rows)
                    let profile = VibeNames.profiles(
                        table: table,
                        tableRows: table.trackIDs.indices.map { Int32($0) },
                        labels: table.trackIDs.indices.map { inside.contains($0) ? 0 : 1 },
                        clusterCount: 2,
                        tags: tags
                    )[0]
                    let fits = evident.contains { profile.name.lowercased().contains($0.lowercased()) }
                    // Whether the tags know the genre at all: a tenth of the playlist's tracks carry it.
                    let known = rows.count { row in
                        tags[table.trackIDs[row]].map { !$0.isDisjoint(with: evident) } ?? false
                    }
                    let isKnown = 10 * known >= rows.count
                    results.append((dataset, playlist, evident.joined(separator: ", "), profile.name, fits, isKnown))
                }
            }
        }
        let fitting = results.filter(\.fits).count
        let report = results.map {
            "\($0.fits ? "fits" : "MISS") genre \($0.genre)\($0.isKnown ? "" : " (unknown to the tags)"): "
                + "\($0.playlist) → \($0.name)"
        }
        .joined(separator: "\n")
        #expect(results.count >= 20, "\(report)")
        print("\(fitting) of \(results.count) genre-evident playlists carry their genre in the vibe's name")
        for dataset in Set(results.map(\.dataset)).sorted() {
            let all = results.filter { $0.dataset == dataset }
            let known = all.filter(\.isKnown)
            print(
                "\(dataset): \(all.count { $0.fits }) of \(all.count) carry their genre;"
                    + " of those whose genre the tags know (a tenth of their tracks), \(known.count { $0.fits }) of \(known.count)"
            )
        }
        let known = results.filter(\.isKnown)
        print(
            "genre-evident playlists whose genre the tags know: \(known.count { $0.fits }) of \(known.count) carry it"
        )
        print(report)
        #expect(Double(fitting) >= 0.6 * Double(results.count), "\(fitting) of \(results.count)\n\(report)")
        #expect(Double(known.count { $0.fits }) >= 0.8 * Double(known.count), "\(report)")
    }
}
