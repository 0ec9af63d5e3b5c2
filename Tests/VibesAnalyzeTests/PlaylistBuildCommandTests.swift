import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import Testing
import VibesTestSupport

@testable import vibes_analyze

struct PlaylistBuildCommandTests {
    static let songs = TidyTuesdaySongs.Song.synthetic(count: 80)

    static func build(_ arguments: [String], store: LibraryStore) throws -> (Features.Playlist, [String]) {
        let command = try #require(
            try VibesAnalyze.parseAsRoot(["playlist", "build"] + arguments) as? VibesAnalyze.PlaylistCommand.Build
        )
        let (playlist, notes) = try command.makePlaylist(store: store)
        return (playlist, notes)
    }

    /// The two figures of "transition cost A (…) vs B (best-start greedy)".
    static func costs(in notes: [String]) throws -> (chosen: Double, greedy: Double) {
        let note = try #require(notes.first { $0.hasPrefix("transition cost ") })
        let words = note.split(separator: " ")
        let chosen = try #require(Double(words[2]))
        let versus = try #require(words.firstIndex(of: "vs"))
        let greedy = try #require(Double(words[versus + 1]))
        return (chosen, greedy)
    }

    @Test(arguments: [
        ["--from-mood", "calm", "--to-mood", "energetic", "--order", "arc"],
        ["--mood", "calm", "--order", "arc", "--arc", "0.5"],
        ["--mood", "calm", "--order", "arc", "--arc", "0.2,1.4"],
        ["--mood", "calm", "--order", "arc", "--arc", "wobbly"],
    ])
    func invalidOrderingArgumentsExitWith64(arguments: [String]) {
        do {
            _ = try VibesAnalyze.parseAsRoot(["playlist", "build"] + arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure, "\(VibesAnalyze.message(for: error))")
        }
    }

    @Test func flowPrintsItsCostBesideBestStartGreedy() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: PlaylistBuildCommandTests.songs)
            let (playlist, notes) = try PlaylistBuildCommandTests.build(
                ["--mood", "energetic", "-n", "25", "--order", "flow"],
                store: store
            )
            let note = try #require(notes.first { $0.hasPrefix("transition cost ") })
            #expect(note.contains("(flow) vs ") && note.contains("(best-start greedy)"))
            #expect(!note.contains("shape correlation"))
            let (chosen, greedy) = try PlaylistBuildCommandTests.costs(in: notes)
            #expect(chosen <= greedy)
            // The printed cost is the printed order's, to the three decimals shown.
            let ordering = PlaylistOrdering()
            let recomputed = zip(playlist.entries, playlist.entries.dropFirst()).reduce(0.0) {
                $0 + ordering.transitionCost(from: $1.0, to: $1.1)
            }
            #expect(abs(recomputed - chosen) <= 0.0005)
            #expect(notes.contains { $0.contains("transition score") })
        }
    }

    @Test func aCustomArcPrintsItsShapeCorrelation() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: PlaylistBuildCommandTests.songs)
            let (playlist, notes) = try PlaylistBuildCommandTests.build(
                ["--mood", "energetic", "-n", "20", "--order", "arc", "--arc", "0.2,0.8,0.4"],
                store: store
            )
            #expect(playlist.description.hasSuffix("ordered arc 0.2,0.8,0.4 (vibes-analyze)"))
            let note = try #require(notes.first { $0.hasPrefix("transition cost ") })
            #expect(note.contains("(arc 0.2,0.8,0.4) vs "))
            let printed = try #require(note.split(separator: " ").last.flatMap { Double($0) })
            #expect(printed >= 0.8)
            // The energies placed in the middle are above those at the start, as the curve asks.
            let energies = playlist.entries.map { $0.features.energy! }
            let start = energies.prefix(4).reduce(0, +) / 4
            let middle = energies[8..<12].reduce(0, +) / 4
            #expect(middle > start)
        }
    }

    @Test func flowKeepsAMoodPathWithinItsSteps() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: PlaylistBuildCommandTests.songs)
            let path = ["--from-mood", "calm", "--to-mood", "energetic", "-n", "12"]
            let (asBuilt, _) = try PlaylistBuildCommandTests.build(path, store: store)
            let (flowing, notes) = try PlaylistBuildCommandTests.build(path + ["--order", "flow"], store: store)
            for step in [0..<3, 3..<6, 6..<9, 9..<12] {
                #expect(Set(flowing.entries[step].map(\.trackID)) == Set(asBuilt.entries[step].map(\.trackID)))
            }
            let (chosen, greedy) = try PlaylistBuildCommandTests.costs(in: notes)
            #expect(chosen <= greedy)
        }
    }
}
