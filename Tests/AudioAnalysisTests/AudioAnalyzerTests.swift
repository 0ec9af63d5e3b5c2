import AudioAnalysis
import Features
import Foundation
import Testing
import VibesTestSupport

/// The analyser on signals made here, whose tempo, key and level are known.
@Suite struct AudioAnalyzerTests {
    private func analyze(_ samples: [Float], sampleRate: Int = 44_100, channels: Int = 1) throws -> AudioFileAnalysis {
        try withTemporaryDirectory { directory in
            let path = directory + "/signal.wav"
            try TestSignals.writeWAV(samples, sampleRate: sampleRate, channels: channels, to: path)
            return try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: path))
        }
    }

    @Test(arguments: [90.0, 120.0, 174.0])
    func clickTrackTempo(bpm: Double) throws {
        let analysis = try analyze(TestSignals.clicks(bpm: bpm, seconds: 30))
        let tempo = try #require(analysis.features.tempo)
        #expect(abs(tempo - bpm) / bpm < 0.04, "measured \(tempo) BPM for a \(bpm) BPM click track")
        #expect(analysis.provenance[.tempo] == .measured)
        #expect((analysis.confidence[.tempo] ?? 0) > 0.5)
        #expect(analysis.features.timeSignature == 4)
    }

    @Test func waltzClickTrackIsInThree() throws {
        let analysis = try analyze(TestSignals.clicks(bpm: 150, seconds: 30, beatsPerBar: 3))
        let tempo = try #require(analysis.features.tempo)
        #expect(abs(tempo - 150) / 150 < 0.04)
        #expect(analysis.features.timeSignature == 3)
        #expect((analysis.confidence[.timeSignature] ?? 0) > 0.3)
    }

    @Test(arguments: [(0, true), (9, false), (3, true), (7, false), (6, true)])
    func cadenceKey(tonic: Int, isMajor: Bool) throws {
        let analysis = try analyze(TestSignals.cadence(tonic: tonic, isMajor: isMajor))
        let name = AudioFeature.pitchClassName(of: Double(tonic)) + (isMajor ? " major" : " minor")
        #expect(analysis.features.key == tonic, "key of a cadence in \(name)")
        #expect(analysis.features.mode == (isMajor ? 1 : 0), "mode of a cadence in \(name)")
        #expect(analysis.provenance[.key] == .measured)
        #expect((analysis.confidence[.key] ?? 0) > 0.2)
    }

    @Test func cadenceKeySurvivesDetunedRecording() throws {
        // A recording tuned 30 cents sharp: resampling by 2^(30/1200) raises every pitch.
        let original = TestSignals.cadence(tonic: 2, isMajor: true)
        let ratio = pow(2, 30.0 / 1200)
        let detuned = (0..<Int(Double(original.count) / ratio)).map { original[Int(Double($0) * ratio)] }
        let analysis = try analyze(detuned)
        #expect(analysis.features.key == 2)
        #expect(analysis.features.mode == 1)
        #expect(abs(analysis.descriptors.tuningCents - 30) < 10, "tuning \(analysis.descriptors.tuningCents) cents")
    }

    /// EBU Tech 3341, test 1: a 1 kHz sine at −23 dBFS measures −23.0 LUFS (±0.1), in stereo and as dual mono.
    @Test(arguments: [1, 2])
    func sineLoudnessMatchesEBUReference(channels: Int) throws {
        let analysis = try analyze(
            TestSignals.sine(hz: 1000, dBFS: -23, seconds: 20),
            sampleRate: 48_000,
            channels: channels
        )
        let loudness = try #require(analysis.features.loudness)
        #expect(abs(loudness - -23) <= 0.1, "measured \(loudness) LUFS")
        #expect(analysis.stream.channels == channels)
        #expect(analysis.stream.sampleRate == 48_000)
        #expect(abs(analysis.durationMS - 20_000) <= 1)
    }

    @Test func quieterSineMeasuresQuieter() throws {
        let loud = try analyze(TestSignals.sine(hz: 1000, dBFS: -10, seconds: 5), sampleRate: 48_000)
        let quiet = try analyze(TestSignals.sine(hz: 1000, dBFS: -30, seconds: 5), sampleRate: 48_000)
        let difference = try #require(loud.features.loudness) - #require(quiet.features.loudness)
        #expect(abs(difference - 20) < 0.2)
    }

    @Test func silenceHasNoKeyTempoLoudnessOrEstimates() throws {
        let analysis = try analyze([Float](repeating: 0, count: 44_100 * 10))
        #expect(analysis.features.key == -1)
        #expect(analysis.features.mode == nil)
        #expect(analysis.features.tempo == nil)
        #expect(analysis.features.loudness == nil)
        #expect(analysis.features.energy == nil)
        #expect(analysis.confidence[.key] == 0)
        #expect(analysis.descriptors.silentShare == 1)
    }

    @Test func whiteNoiseIsNoisyBrightAndWithoutKey() throws {
        let noise = try analyze(TestSignals.whiteNoise(seconds: 10))
        let chords = try analyze(TestSignals.cadence(tonic: 0, isMajor: true, repeats: 3))
        #expect((noise.confidence[.key] ?? 1) < 0.3, "key confidence of noise: \(noise.confidence[.key] ?? -1)")
        #expect(noise.descriptors.spectralFlatness > 0.5)
        #expect(chords.descriptors.spectralFlatness < 0.2)
        #expect(try #require(noise.features.acousticness) < #require(chords.features.acousticness))
        #expect(noise.features.liveness == nil)
        #expect(noise.provenance[.energy] == .estimated)
    }

    @Test func estimatesStayInSpotifyRanges() throws {
        for samples in [TestSignals.clicks(bpm: 128, seconds: 12), TestSignals.whiteNoise(seconds: 5)] {
            let analysis = try analyze(samples)
            for feature in AudioFeature.unitIntervalFeatures {
                guard let value = analysis.features[feature] else { continue }
                #expect((0...1).contains(value), "\(feature) = \(value)")
            }
        }
    }

    @Test func tooShortFileIsRefused() throws {
        #expect(throws: AudioAnalysisError.self) { try analyze([Float](repeating: 0.1, count: 4410)) }
    }
}
