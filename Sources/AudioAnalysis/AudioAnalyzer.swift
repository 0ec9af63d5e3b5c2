import Features
import Foundation

/// Analyses audio files into features on Spotify's scales.
///
/// ```swift
/// let analyzer = AudioAnalyzer(tagger: try MusicTagger())
/// let analysis = try analyzer.analyze(fileAt: URL(fileURLWithPath: "song.flac"))
/// print(analysis.features.tempo ?? 0, analysis.confidence[.tempo] ?? 0, analysis.audioTags?.topTags ?? [])
/// ```
///
/// The file is decoded once, as a stream (FFmpeg), so memory stays bounded whatever its length.
/// Measured: tempo (`TempoEstimator`, Essentia's Degara beat tracker ported), key and mode
/// (`KeyEstimator`), loudness (EBU R128 integrated, libebur128), duration and time signature.
/// With a ``MusicTagger``, the same decoding feeds it too, and its tags are the file's
/// ``AudioFileAnalysis/audioTags``. Estimated: energy, danceability, valence, acousticness,
/// instrumentalness and speechiness (`FeatureEstimator`), from what the tagger heard together
/// with the measured signals, or from the signals alone without a tagger or for audio shorter
/// than ``MusicTagger/minimumSeconds``. Liveness is never produced. An analyzer holds no state
/// but its tagger's weights: one instance can analyse files on several threads at once.
public struct AudioAnalyzer: Sendable {
    /// The version stored with every value this analyser produces (the source `local:<version>`).
    /// It changes whenever a change would move the numbers, so stored results can be redone.
    public static let version = "vibes-5"

    /// The shortest file analysed, in seconds.
    public static let minimumSeconds = 1.0

    /// The sample rates analysed, in Hz. Below 4 kHz nothing the analysis measures survives (beats,
    /// pitch up to 5 kHz, timbre) and the resampling to 22,050 Hz and 44.1 kHz would multiply
    /// every block many times over (at 4 kHz, a block of ``maximumFrameSize`` becomes 46 MB at
    /// 44.1 kHz); above 768 kHz no audio format records, and libebur128 refuses rates above
    /// 2.8 MHz.
    public static let supportedSampleRates = 4_000...768_000

    /// The channel counts analysed: libswresample mixes at most 64 channels down.
    public static let supportedChannelCounts = 1...64

    /// The most samples per channel in one decoded block: a million, ample for every codec, and
    /// what bounds the memory of one block's conversion.
    public static let maximumFrameSize = 1 << 20

    /// The tagger whose tags the estimates are made from, or `nil` for the signals alone.
    public let tagger: MusicTagger?

    /// An analyser that estimates from what `tagger` hears, or from the signals alone when it is
    /// `nil`.
    public init(tagger: MusicTagger? = nil) {
        self.tagger = tagger
    }

    /// Analyses the audio file at `url`.
    ///
    /// - Throws: ``AudioAnalysisError`` naming the file and why it could not be analysed: see
    ///   ``analyze(_:)``.
    public func analyze(fileAt url: URL) throws(AudioAnalysisError) -> AudioFileAnalysis {
        try analyze(AudioFile(opening: AudioFilePath(url.path)))
    }

    /// Analyses `file`, reading it through its open descriptor.
    ///
    /// Every failure of FFmpeg, libebur128 and aubio is an error for this file alone; nothing is
    /// left allocated.
    ///
    /// - Throws: ``AudioAnalysisError`` naming the file and why it could not be analysed: empty,
    ///   not audio, an unsupported codec, sample rate (``supportedSampleRates``), channel count
    ///   (``supportedChannelCounts``) or block size (``maximumFrameSize``), cut short, too short,
    ///   or a library's failure.
    public func analyze(_ file: AudioFile) throws(AudioAnalysisError) -> AudioFileAnalysis {
        let path = file.path.description
        if file.size == 0 { throw .emptyFile(path: path) }
        do {
            return try analyzeDecoded(file: file)
        } catch let error as AudioAnalysisError {
            throw error
        } catch let error as LibraryCallFailure {
            throw .libraryFailure(path: path, call: error.call)
        } catch {
            throw .decodeFailed(path: path, reason: String(describing: error))
        }
    }

    private func analyzeDecoded(file: AudioFile) throws -> AudioFileAnalysis {
        let tagging = tagger?.makeAccumulator()
        let decoder = try AudioDecoder(
            file: file,
            monoSignals: tagging == nil ? [.analysis, .tempo] : [.analysis, .tempo, .tagger]
        )
        let info = decoder.info
        let path = file.path.description
        let analysisRate = AudioDecoder.analysisSampleRate
        guard let loudness = LoudnessMeter(channels: decoder.outputChannels, sampleRate: info.sampleRate) else {
            throw AudioAnalysisError.libraryFailure(path: path, call: "ebur128_init")
        }
        let beats = try BeatTracker(sampleRate: analysisRate)
        let spectrum = try SpectralAnalyzer(sampleRate: analysisRate)
        let onsets = try ComplexDomainOnsets()
        let signals = decoder.monoSignals
        let frames = try decoder.decode(
            native: { try loudness.add($0) },
            mono: { signal, block in
                switch signals[signal] {
                case .analysis:
                    beats.add(block)
                    spectrum.add(block)
                case .tempo: onsets.add(block)
                default: tagging?.add(block)
                }
            }
        )
        let seconds = Double(frames) / Double(info.sampleRate)
        if let declared = info.declaredDuration, declared >= 2, seconds < 0.75 * declared {
            throw AudioAnalysisError.truncated(path: path, decodedSeconds: seconds, declaredSeconds: declared)
        }
        guard seconds >= Self.minimumSeconds else {
            throw AudioAnalysisError.tooShort(path: path, seconds: seconds, minimum: Self.minimumSeconds)
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
            onsets: onsets.values,
            onsetsPerSecond: ComplexDomainOnsets.valuesPerSecond,
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
        let key = KeyEstimator.estimate(from: spectrum.harmonicProfile.pitchClassProfile())
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

        let finished = tagging?.finish()
        let heard = finished.map(Self.audioTags(of:))

        // Estimates need sound: a silent file gets none rather than numbers made of nothing.
        if integrated != nil, spectrum.soundingFrameCount > 0 {
            let estimates = FeatureEstimator.estimate(
                from: descriptors,
                tags: heard,
                tempo: tempo,
                mode: key?.mode,
                keyConfidence: key?.confidence ?? 0
            )
            for (feature, estimate) in estimates {
                features[feature] = estimate.value
                provenance[feature] = .estimated
                confidence[feature] = estimate.confidence
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
            audioTags: heard,
            embedding: finished?.embedding,
            analyzer: Self.version
        )
    }

    /// The tagging as stored: each probability rounded to 4 decimals.
    static func audioTags(of tagging: MusicTagging) -> AudioTagProbabilities {
        let pairs = zip(tagging.tags, tagging.probabilities).map { ($0, (Double($1) * 10_000).rounded() / 10_000) }
        return AudioTagProbabilities(
            model: tagging.model,
            probabilities: Dictionary(pairs, uniquingKeysWith: max)
        )
    }
}

/// A call into a C library that failed (`call` names it): NULL from an allocation, or an error code.
struct LibraryCallFailure: Error {
    var call: String
}
