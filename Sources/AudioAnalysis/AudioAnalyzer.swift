import Features
import Foundation

/// Analyses audio files into features on Spotify's scales.
///
/// ```swift
/// let analysis = try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: "song.flac"))
/// print(analysis.features.tempo ?? 0, analysis.confidence[.tempo] ?? 0)
/// ```
///
/// The file is decoded as a stream (FFmpeg), so memory stays bounded whatever its length. Measured:
/// tempo (`TempoEstimator`, over aubio's onset detection function), key and mode (`KeyEstimator`), loudness (EBU R128 integrated,
/// libebur128), duration and time signature. Estimated: energy, danceability, valence,
/// acousticness, instrumentalness and speechiness (`FeatureEstimator`). Liveness is never
/// produced. An analyzer holds no state: one instance can analyse files on several threads at once.
public struct AudioAnalyzer: Sendable {
    /// The version stored with every value this analyser produces (the source `local:<version>`).
    /// It changes whenever a change would move the numbers, so stored results can be redone.
    public static let version = "vibes-1"

    /// The shortest file analysed, in seconds.
    public static let minimumSeconds = 1.0

    public init() {}

    /// Analyses the audio file at `url`.
    ///
    /// - Throws: ``AudioAnalysisError`` naming the file and why it could not be analysed.
    public func analyze(fileAt url: URL) throws(AudioAnalysisError) -> AudioFileAnalysis {
        let path = url.path
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if size == 0 { throw .emptyFile(path: path) }
        do {
            return try analyzeDecoded(url: url)
        } catch let error as AudioAnalysisError {
            throw error
        } catch {
            throw .decodeFailed(path: path, reason: String(describing: error))
        }
    }

    private func analyzeDecoded(url: URL) throws -> AudioFileAnalysis {
        let decoder = try AudioDecoder(url: url)
        let info = decoder.info
        let analysisRate = AudioDecoder.analysisSampleRate
        let loudness = LoudnessMeter(channels: decoder.outputChannels, sampleRate: info.sampleRate)
        let beats = BeatTracker(sampleRate: analysisRate)
        let spectrum = SpectralAnalyzer(sampleRate: analysisRate)
        let frames = try decoder.decode(
            native: { loudness.add($0) },
            analysis: { block in
                beats.add(block)
                spectrum.add(block)
            }
        )
        let seconds = Double(frames) / Double(info.sampleRate)
        if let declared = info.declaredDuration, declared >= 2, seconds < 0.75 * declared {
            throw AudioAnalysisError.truncated(path: url.path, decodedSeconds: seconds, declaredSeconds: declared)
        }
        guard seconds >= Self.minimumSeconds else {
            throw AudioAnalysisError.tooShort(path: url.path, seconds: seconds, minimum: Self.minimumSeconds)
        }

        var features = AudioFeatures()
        var provenance: [AudioFeature: Provenance] = [:]
        var confidence: [AudioFeature: Double] = [:]
        func measured(_ feature: AudioFeature, confidence value: Double) {
            provenance[feature] = .measured
            confidence[feature] = max(0, min(1, value))
        }

        let integrated = loudness.integratedLoudness
        if let integrated {
            features.loudness = integrated
            measured(.loudness, confidence: seconds >= 3 ? 1 : 0.5)
        }

        let hopSeconds = Double(BeatTracker.hopSize) / Double(analysisRate)
        let tempoEstimate = TempoEstimator.estimate(
            strength: beats.onsetStrength,
            envelope: beats.envelope,
            framesPerSecond: 1 / hopSeconds
        )
        let tempo = tempoEstimate?.bpm
        let regularity = RhythmDescriptors.regularity(beats: beats.beats)
        if let tempoEstimate {
            features.tempo = tempoEstimate.bpm
            measured(.tempo, confidence: tempoEstimate.confidence)
        }
        if let (signature, signatureConfidence) = tempoEstimate?.timeSignature {
            features.timeSignature = signature
            measured(.timeSignature, confidence: signatureConfidence)
        }

        let profile = spectrum.pitchClassProfile()
        let key = KeyEstimator.estimate(from: profile)
        if let key {
            features.key = key.key
            features.mode = key.mode
            measured(.key, confidence: key.confidence)
            measured(.mode, confidence: key.confidence)
        } else {
            features.key = -1
            measured(.key, confidence: 0)
        }

        let descriptors = AudioDescriptors(
            integratedLoudness: integrated,
            loudnessRange: loudness.loudnessRange,
            tempoConfidence: beats.confidence,
            beatRegularity: regularity,
            onsetRate: Double(beats.onsetCount) / seconds,
            spectralCentroid: spectrum.meanCentroid,
            spectralFlatness: spectrum.meanFlatness,
            highFrequencyShare: spectrum.meanHighRatio,
            lowFrequencyShare: spectrum.meanLowRatio,
            syllabicModulation: RhythmDescriptors.syllabicModulation(envelope: beats.envelope, hopSeconds: hopSeconds),
            keyCorrelation: key?.correlation ?? 0,
            tuningCents: spectrum.tuningCents(),
            silentShare: spectrum.frameCount > 0
                ? Double(spectrum.silentFrameCount) / Double(spectrum.frameCount) : 1,
            pitchClassProfile: profile.map { ($0 * 10_000).rounded() / 10_000 }
        )

        // Estimates need sound: a silent file gets none rather than numbers made of nothing.
        if integrated != nil, spectrum.soundingFrameCount > 0 {
            let estimates = FeatureEstimator.estimate(
                from: descriptors,
                tempo: tempo,
                mode: key?.mode,
                keyConfidence: key?.confidence ?? 0
            )
            let values: [(AudioFeature, Double, Double)] = [
                (.energy, estimates.energy, FeatureEstimator.energyConfidence),
                (.danceability, estimates.danceability, FeatureEstimator.danceabilityConfidence),
                (.valence, estimates.valence, FeatureEstimator.valenceConfidence),
                (.acousticness, estimates.acousticness, FeatureEstimator.acousticnessConfidence),
                (.instrumentalness, estimates.instrumentalness, FeatureEstimator.instrumentalnessConfidence),
                (.speechiness, estimates.speechiness, FeatureEstimator.speechinessConfidence),
            ]
            for (feature, value, certainty) in values {
                features[feature] = value
                provenance[feature] = .estimated
                confidence[feature] = certainty
            }
        }

        return AudioFileAnalysis(
            durationMS: Int((seconds * 1000).rounded()),
            features: features,
            provenance: provenance,
            confidence: confidence,
            descriptors: descriptors,
            tags: AudioFileTags(tags: info.tags),
            stream: AudioStreamFormat(codec: info.codec, sampleRate: info.sampleRate, channels: info.channels),
            analyzer: Self.version
        )
    }
}
