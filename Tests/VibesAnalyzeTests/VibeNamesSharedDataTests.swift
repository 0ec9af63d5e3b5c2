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
}
