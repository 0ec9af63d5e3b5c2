import Foundation

/// A trained music tagger: musicnn's MSD model, run natively on OpenBLAS.
///
/// ```swift
/// let tagger = try MusicTagger()
/// if let tagging = try tagger.tag(fileAt: URL(fileURLWithPath: "song.flac")) {
///     print(tagging.probabilities(above: 0.2))
/// }
/// ```
///
/// The model is `MSD_musicnn` from musicnn 0.1.0 (ISC licence; Pons and Serra, Music Technology
/// Group, Universitat Pompeu Fabra), trained on Million Song Dataset audio with its 50 most frequent
/// Last.fm tags: genres (rock, metal, electronic, jazz, folk, Hip-Hop …), moods (happy, sad,
/// chill, Mellow …), instrumentation (acoustic, instrumental, female vocalists …) and decades. The
/// file is decoded to 16 kHz mono (the mean of its channels), cut into 3-second patches, and each
/// patch's tag probabilities and embedding are averaged, as musicnn does. A tagger holds only its
/// weights: one instance can tag files on several threads at once.
public struct MusicTagger: Sendable {
    /// The rate the network hears, in Hz.
    public static let sampleRate = 16_000

    /// The shortest audio tagged: one patch of 187 frames, 2.98 s.
    public static var minimumSeconds: Double {
        Double((MusicnnNetwork.patchFrames - 1) * LogMelSpectrogram.hop) / Double(sampleRate)
    }

    private let network: MusicnnNetwork

    /// The tags, in the order of ``MusicTagging/probabilities``.
    public var tags: [String] { network.tags }

    /// Loads the model bundled with this library.
    ///
    /// - Throws: ``MusicTaggerModelError`` when its files are missing or damaged.
    public init() throws(MusicTaggerModelError) {
        guard let directory = Bundle.module.url(forResource: "MSD_musicnn", withExtension: nil) else {
            throw .unreadable(path: "MSD_musicnn", reason: "not in the AudioAnalysis resources")
        }
        try self.init(modelDirectory: directory)
    }

    /// Loads a converted model from `directory` (`manifest.json` and `weights.bin`).
    ///
    /// - Throws: ``MusicTaggerModelError`` when its files are missing, damaged or of another shape.
    public init(modelDirectory directory: URL) throws(MusicTaggerModelError) {
        network = try MusicnnNetwork(weights: MusicnnWeights(directory: directory))
    }

    /// Tags the audio file at `url`.
    ///
    /// - Returns: The tagging, or `nil` when the audio is shorter than ``minimumSeconds``.
    /// - Throws: ``AudioAnalysisError`` when the file cannot be decoded.
    public func tag(fileAt url: URL) throws(AudioAnalysisError) -> MusicTagging? {
        try tag(AudioFile(opening: AudioFilePath(url.path)))
    }

    /// Tags `file`, reading it through its open descriptor.
    ///
    /// - Returns: The tagging, or `nil` when the audio is shorter than ``minimumSeconds``.
    /// - Throws: ``AudioAnalysisError`` when the file cannot be decoded.
    public func tag(_ file: AudioFile) throws(AudioAnalysisError) -> MusicTagging? {
        let path = file.path.description
        if file.size == 0 { throw .emptyFile(path: path) }
        do {
            let decoder = try AudioDecoder(file: file, monoSampleRate: Self.sampleRate, averagesChannels: true)
            let accumulator = Accumulator(network: network)
            _ = try decoder.decode(native: { _ in }, analysis: { accumulator.add($0) })
            return accumulator.finish()
        } catch let error as AudioAnalysisError {
            throw error
        } catch {
            throw .decodeFailed(path: path, reason: String(describing: error))
        }
    }

    /// Tags mono audio at ``sampleRate``.
    ///
    /// - Returns: The tagging, or `nil` when the audio is shorter than ``minimumSeconds``.
    public func tag(samples: [Float]) -> MusicTagging? {
        let accumulator = Accumulator(network: network)
        samples.withUnsafeBufferPointer { accumulator.add($0) }
        return accumulator.finish()
    }
}

/// What the tagger hears in one file.
public struct MusicTagging: Hashable, Sendable {
    /// The tags, in the order of ``probabilities``.
    public var tags: [String]
    /// Each tag's probability, from 0 to 1, averaged over the patches.
    public var probabilities: [Float]
    /// The penultimate layer (200 values), averaged over the patches: what the music sounds like.
    public var embedding: [Float]
    /// The 3-second patches heard.
    public var patchCount: Int

    /// The tags whose probability is at least `threshold`, most probable first.
    public func probabilities(above threshold: Float) -> [(tag: String, probability: Float)] {
        zip(tags, probabilities).filter { $0.1 >= threshold }.sorted { $0.1 > $1.1 }.map { ($0.0, $0.1) }
    }
}

/// Cuts the log-mel stream into musicnn's non-overlapping patches and sums their outputs.
private final class Accumulator {
    private let network: MusicnnNetwork
    private let spectrogram = LogMelSpectrogram(blockFrames: MusicnnNetwork.patchFrames)
    private var patch = [Float]()
    private var probabilities: [Float]
    private var embedding: [Float]
    private var patchCount = 0

    init(network: MusicnnNetwork) {
        self.network = network
        probabilities = [Float](repeating: 0, count: network.tags.count)
        embedding = [Float](repeating: 0, count: network.embeddingSize)
        patch.reserveCapacity(MusicnnNetwork.patchFrames * MusicnnNetwork.bandCount)
    }

    func add(_ samples: UnsafeBufferPointer<Float>) {
        spectrogram.add(samples) { self.append($0) }
    }

    func finish() -> MusicTagging? {
        spectrogram.finish { self.append($0) }
        guard patchCount > 0 else { return nil }
        let count = Float(patchCount)
        return MusicTagging(
            tags: network.tags,
            probabilities: probabilities.map { $0 / count },
            embedding: embedding.map { $0 / count },
            patchCount: patchCount
        )
    }

    private func append(_ rows: UnsafeBufferPointer<Float>) {
        let size = MusicnnNetwork.patchFrames * MusicnnNetwork.bandCount
        var rest = rows[...]
        while !rest.isEmpty {
            let taken = rest.prefix(size - patch.count)
            patch.append(contentsOf: taken)
            rest = rest.dropFirst(taken.count)
            guard patch.count == size else { continue }
            let output = patch.withUnsafeBufferPointer { network.run(patch: $0) }
            for index in probabilities.indices { probabilities[index] += output.probabilities[index] }
            for index in embedding.indices { embedding[index] += output.embedding[index] }
            patchCount += 1
            patch.removeAll(keepingCapacity: true)
        }
    }
}
