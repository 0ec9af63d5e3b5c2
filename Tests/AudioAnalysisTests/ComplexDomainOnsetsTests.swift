import Foundation
import Testing
import VibesTestSupport

@testable import AudioAnalysis

/// The complex-domain onset function at Essentia's 44.1 kHz, and the signal the decoder makes for it.
@Suite struct ComplexDomainOnsetsTests {
    /// Decaying 1 kHz clicks every `60 / bpm` seconds over quiet noise, at 44.1 kHz.
    static func clicks(bpm: Double, seconds: Double) -> [Float] {
        let rate = Double(ComplexDomainOnsets.sampleRate)
        let period = Int((rate * 60 / bpm).rounded())
        var generator = DegaraBeatTracker.SplitMix(seed: 3)
        return (0..<Int(seconds * rate)).map { index in
            let since = Double(index % period) / rate
            let click = exp(-since / 0.01) * sin(2 * Double.pi * 1000 * since)
            return Float(0.8 * click + 0.01 * (generator.nextUnit() - 0.5))
        }
    }

    @Test(arguments: [84.0, 126.0, 150.0])
    func clicksGiveTheirTempo(bpm: Double) throws {
        let onsets = try ComplexDomainOnsets()
        let samples = Self.clicks(bpm: bpm, seconds: 40)
        // In blocks of uneven length, as the decoder hands them out.
        var start = 0
        var length = 1000
        while start < samples.count {
            let end = min(samples.count, start + length)
            samples[start..<end].withUnsafeBufferPointer { onsets.add($0) }
            (start, length) = (end, length % 3000 + 777)
        }
        let frames = (samples.count - ComplexDomainOnsets.frameSize) / ComplexDomainOnsets.hopSize + 1
        #expect(onsets.values.count == frames)
        let tempo = try #require(
            DegaraBeatTracker.tempo(of: onsets.values, framesPerSecond: ComplexDomainOnsets.valuesPerSecond)
        )
        #expect(abs(tempo.bpm - bpm) / bpm < 0.02, "\(tempo.bpm) BPM for \(bpm)")
    }

    /// The fixture clip is mono at 22,050 Hz: its tempo signal is twice as long as the analysis
    /// signal, and carries the same sound.
    @Test func decoderMakesTheTempoSignalAt44100Hz() throws {
        let file = try AudioFile(opening: AudioFilePath(Fixtures.path("audio/clip.flac")))
        let decoder = try AudioDecoder(file: file, monoSignals: [.analysis, .tempo])
        var counts = [0, 0]
        var energies = [0.0, 0.0]
        let frames = try decoder.decode(
            native: { _ in },
            mono: { signal, block in
                counts[signal] += block.count
                energies[signal] += block.reduce(0) { $0 + Double($1 * $1) }
            }
        )
        #expect(decoder.info.sampleRate == 22_050)
        #expect(abs(counts[0] - frames) <= 32)
        #expect(abs(counts[1] - 2 * frames) <= 64)
        let levels = zip(energies, counts).map { ($0 / Double($1)).squareRoot() }
        #expect(levels[1] > 0 && abs(levels[1] - levels[0]) / levels[0] < 0.05, "levels \(levels)")
    }
}
