import Features
import Foundation
import Testing

@testable import AudioAnalysis

/// Tempo and key against Essentia on the 57-song corpus (issue 42): what `analyze` measured in
/// every song (`Benchmarks/audio/corpus-tempo-key.tsv`, written by `Benchmarks/audio/tempo_key.py`)
/// agrees with Essentia's references (`Benchmarks/audio/reference-corpus.tsv`) as often as measured:
/// the tempo within 4 % (octave-tolerant) of `RhythmExtractor2013`'s on 55 of the 57 songs (the
/// goal, 95 %), the key and mode equal to `KeyExtractor`'s with the `edma` profile on all 57 (the
/// goal is 80 %). The audio is needed only to check that songs still analyse to their rows.
@Suite struct TempoKeyCorpusTests {
    struct Row {
        var file: String
        var tempo: Double?
        var key: Int?
        var mode: Int?
    }

    static func table(_ name: String) throws -> [[String: String]] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let text = try String(contentsOf: url.appendingPathComponent("Benchmarks/audio/" + name), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let header = lines[0].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return lines.dropFirst().map { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(header, cells))
        }
    }

    static func measured() throws -> [String: Row] {
        let rows = try table("corpus-tempo-key.tsv").map { cells in
            Row(
                file: cells["file"] ?? "",
                tempo: cells["tempo"].flatMap(Double.init),
                key: cells["key"].flatMap { Int($0) },
                mode: cells["mode"].flatMap { Int($0) }
            )
        }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.file, $0) })
    }

    static let pitchClasses = [
        "C": 0, "C#": 1, "D": 2, "Eb": 3, "E": 4, "F": 5, "F#": 6, "G": 7, "Ab": 8, "A": 9, "Bb": 10, "B": 11,
    ]

    static func tempoAgrees(_ value: Double?, with reference: Double) -> Bool {
        guard let value else { return false }
        return [1, 2, 0.5].contains { abs(value - reference * $0) <= 0.04 * reference * $0 }
    }

    @Test func tempoAndKeyAgreeWithEssentiaOnTheCorpus() throws {
        let references = try Self.table("reference-corpus.tsv")
        let measured = try Self.measured()
        #expect(references.count == 57)
        var tempos = 0
        var keys = 0
        for reference in references {
            let row = try #require(measured[reference["file"] ?? ""], "\(reference["file"] ?? "?") is not in the table")
            let bpm = try #require(reference["essentia_bpm"].flatMap(Double.init))
            if Self.tempoAgrees(row.tempo, with: bpm) { tempos += 1 }
            let key = Self.pitchClasses[reference["edma_key"] ?? ""]
            let mode = reference["edma_scale"] == "major" ? 1 : 0
            if row.key == key, row.mode == mode { keys += 1 }
        }
        #expect(tempos >= 55, "tempo agrees on \(tempos) of \(references.count)")
        #expect(keys >= 57, "key and mode agree on \(keys) of \(references.count)")
    }

    /// The table is what the analyser measures: songs of the corpus analyse to their rows. Song 03
    /// is the one whose tempo needs the onset function at 44.1 kHz (110.3 BPM from 22,050 Hz).
    @Test(
        .enabled(if: AudioCorpus.isAvailable, AudioCorpus.skipReason),
        arguments: ["42.ogg", "46.ogg", "23.ogg", "03.ogg"]
    )
    func aCorpusSongStillAnalysesToItsRow(file: String) throws {
        let row = try #require(try Self.measured()[file])
        let analysis = try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: AudioCorpus.path(file)))
        #expect(abs((analysis.features.tempo ?? 0) - (row.tempo ?? 0)) <= 0.01)
        #expect(analysis.features.key == row.key)
        #expect(analysis.features.mode == row.mode)
    }
}
