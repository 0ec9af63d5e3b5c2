import Foundation

/// The converted musicnn weights: `manifest.json` (the tags, and each tensor's name, shape and
/// offset) and `weights.bin` (little-endian `Float32`), as `scripts/tagger/convert_musicnn.py`
/// writes them.
struct MusicnnWeights {
    struct Manifest: Decodable {
        struct Tensor: Decodable {
            var name: String
            var shape: [Int]
            var offset: Int
        }

        var model: String
        var tags: [String]
        var tensors: [Tensor]
    }

    /// The model's name (`MSD_musicnn`).
    let model: String
    let tags: [String]
    private let tensors: [String: Manifest.Tensor]
    private let values: [Float]

    /// Reads the model in `directory`.
    init(directory: URL) throws(MusicTaggerModelError) {
        let manifestURL = directory.appendingPathComponent("manifest.json")
        let weightsURL = directory.appendingPathComponent("weights.bin")
        let manifest: Manifest
        let data: Data
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: manifestURL))
            data = try Data(contentsOf: weightsURL)
        } catch {
            throw .unreadable(path: directory.path, reason: String(describing: error))
        }
        model = manifest.model
        tags = manifest.tags
        tensors = Dictionary(manifest.tensors.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        values = data.withUnsafeBytes { raw in
            (0..<raw.count / 4).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
            }
        }
    }

    /// The tensor `name`, flattened row-major, after checking that its shape is `shape`.
    func tensor(_ name: String, shape: [Int]) throws(MusicTaggerModelError) -> [Float] {
        guard let tensor = tensors[name] else { throw .missingTensor(name) }
        guard tensor.shape == shape else { throw .wrongShape(name: name, expected: shape, found: tensor.shape) }
        let count = shape.reduce(1, *)
        guard tensor.offset >= 0, tensor.offset + count <= values.count else {
            throw .wrongShape(name: name, expected: shape, found: [values.count - tensor.offset])
        }
        return Array(values[tensor.offset..<tensor.offset + count])
    }
}
