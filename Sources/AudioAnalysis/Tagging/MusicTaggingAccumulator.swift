/// Cuts the log-mel stream into musicnn's non-overlapping patches and sums their outputs.
final class MusicTaggingAccumulator {
    private let network: MusicnnNetwork
    private let usage: TaggerUsage?
    private let spectrogram = LogMelSpectrogram(blockFrames: MusicnnNetwork.patchFrames)
    private var patch = [Float]()
    private var probabilities: [Float]
    private var embedding: [Float]
    private var patchCount = 0

    init(network: MusicnnNetwork, usage: TaggerUsage? = nil) {
        self.network = network
        self.usage = usage
        probabilities = [Float](repeating: 0, count: network.tags.count)
        embedding = [Float](repeating: 0, count: network.embeddingSize)
        patch.reserveCapacity(MusicnnNetwork.patchFrames * MusicnnNetwork.bandCount)
    }

    func add(_ samples: UnsafeBufferPointer<Float>) {
        measured { spectrogram.add(samples) { self.append($0) } }
    }

    func finish() -> MusicTagging? {
        measured { spectrogram.finish { self.append($0) } }
        guard patchCount > 0 else { return nil }
        let count = Float(patchCount)
        return MusicTagging(
            model: network.model,
            tags: network.tags,
            probabilities: probabilities.map { $0 / count },
            embedding: embedding.map { $0 / count },
            patchCount: patchCount
        )
    }

    private func measured(_ body: () -> Void) {
        if let usage { usage.measure(body) } else { body() }
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
