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
    private let usage = TaggerUsage()

    /// The processor time this tagger has spent hearing so far (its mel front end and network),
    /// in seconds, summed over every thread that used it: its share of an analysis's cost.
    public var processorSeconds: Double { usage.seconds }

    /// The model's name, as its manifest gives it (`MSD_musicnn`).
    public var model: String { network.model }

    /// The tags, in the order of ``MusicTagging/probabilities``.
    public var tags: [String] { network.tags }

    /// Loads the model bundled with this library.
    ///
    /// - Throws: ``MusicTaggerModelError`` when its files are missing or damaged.
    public init() throws(MusicTaggerModelError) {
        try self.init(modelDirectory: Self.bundledModelDirectory())
    }

    /// The folder SwiftPM builds this library's resources into, which must sit beside the program
    /// (`make install` puts it there).
    public static let resourceBundleName = "vibes-analyze_AudioAnalysis.resources"

    /// `MSD_musicnn` in this library's resources.
    ///
    /// On Linux the resources are looked for beside the running program, as `Bundle.module` does,
    /// and beside the file a symbolic link to the program leads to; when they are in neither
    /// place this throws, where `Bundle.module` would stop the program.
    static func bundledModelDirectory() throws(MusicTaggerModelError) -> URL {
        #if os(Linux)
        var folders = [Bundle.main.bundleURL.standardizedFileURL]
        if let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let folder = URL(fileURLWithPath: program).resolvingSymlinksInPath().deletingLastPathComponent()
            if !folders.contains(folder) { folders.append(folder) }
        }
        for folder in folders {
            let directory = folder.appendingPathComponent(resourceBundleName).appendingPathComponent("MSD_musicnn")
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("manifest.json").path) {
                return directory
            }
        }
        throw .unreadable(
            path: folders[0].appendingPathComponent(resourceBundleName).path,
            reason: "the tagger's model is not installed beside the program (`make install` installs it)"
        )
        #else
        guard let directory = Bundle.module.url(forResource: "MSD_musicnn", withExtension: nil) else {
            throw .unreadable(path: "MSD_musicnn", reason: "not in the AudioAnalysis resources")
        }
        return directory
        #endif
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
            let decoder = try AudioDecoder(file: file, monoSignals: [.tagger])
            let accumulator = makeAccumulator()
            _ = try decoder.decode(native: { _ in }, mono: { accumulator.add($1) })
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
        let accumulator = makeAccumulator()
        samples.withUnsafeBufferPointer { accumulator.add($0) }
        return accumulator.finish()
    }

    /// A tagging of one stream of mono audio at ``sampleRate``, fed a block at a time.
    func makeAccumulator() -> MusicTaggingAccumulator { MusicTaggingAccumulator(network: network, usage: usage) }
}

/// What the tagger hears in one file.
public struct MusicTagging: Hashable, Sendable {
    /// The model that heard them, by name (``MusicTagger/model``).
    public var model: String
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
