import CBLAS
import Foundation

/// musicnn's network (Pons and Serra, 2019) at inference, on OpenBLAS.
///
/// One 3-second patch (`patchFrames` × 96 log-mel bands) goes through: batch norm; a front end of
/// five convolutions, two timbral ones (7 frames × 38 and 67 bands, 204 filters, padded in time
/// only) and three temporal ones (128, 64 and 32 frames × 1 band, 51 filters, "same" padding), each
/// ReLU, batch norm and a max over frequency, concatenated into 561 features per frame; a mid end of
/// three convolutions of 7 frames over all features (64 filters, ReLU, batch norm), the second and
/// third with residual connections, concatenated with the front end into 753 features; a back end
/// of max and mean over time, a dense layer of 200 units (ReLU, batch norm: the embedding) and a
/// dense layer of one logit per tag. Convolutions are im2col matrix products (`cblas_sgemm`).
/// Batch norm is a per-channel scale and shift, folded into the next dense layer where nothing
/// comes between them.
final class MusicnnNetwork: Sendable {
    static let patchFrames = 187
    static let bandCount = LogMelSpectrogram.bandCount

    struct Convolution {
        var frames: Int
        var width: Int
        var filters: Int
        var kernel: [Float]
        var bias: [Float]
        var scale: [Float]
        var shift: [Float]
    }

    struct Dense {
        var inputs: Int
        var outputs: Int
        var kernel: [Float]
        var bias: [Float]
    }

    let model: String
    let tags: [String]
    let inputScale: Float
    let inputShift: Float
    let timbral: [Convolution]
    let temporal: [Convolution]
    let midend: [Convolution]
    let dense: Dense
    let denseScale: [Float]
    let denseShift: [Float]
    let output: Dense

    var embeddingSize: Int { dense.outputs }
    private var frontendFeatures: Int { timbral.reduce(0) { $0 + $1.filters } + temporal.reduce(0) { $0 + $1.filters } }

    init(weights: MusicnnWeights) throws(MusicTaggerModelError) {
        model = weights.model
        tags = weights.tags
        inputScale = try weights.tensor("input.scale", shape: [1])[0]
        inputShift = try weights.tensor("input.shift", shape: [1])[0]
        func convolution(
            _ name: String,
            frames: Int,
            width: Int,
            filters: Int
        ) throws(MusicTaggerModelError)
            -> Convolution
        {
            Convolution(
                frames: frames,
                width: width,
                filters: filters,
                kernel: try weights.tensor(name + ".kernel", shape: [frames * width, filters]),
                bias: try weights.tensor(name + ".bias", shape: [filters]),
                scale: try weights.tensor(name + ".scale", shape: [filters]),
                shift: try weights.tensor(name + ".shift", shape: [filters])
            )
        }
        timbral = [
            try convolution("timbral74", frames: 7, width: 38, filters: 204),
            try convolution("timbral77", frames: 7, width: 67, filters: 204),
        ]
        temporal = [
            try convolution("temporal128", frames: 128, width: 1, filters: 51),
            try convolution("temporal64", frames: 64, width: 1, filters: 51),
            try convolution("temporal32", frames: 32, width: 1, filters: 51),
        ]
        let features = 2 * 204 + 3 * 51
        midend = [
            try convolution("midend1", frames: 7, width: features, filters: 64),
            try convolution("midend2", frames: 7, width: 64, filters: 64),
            try convolution("midend3", frames: 7, width: 64, filters: 64),
        ]
        let pooled = 2 * (features + 3 * 64)
        dense = Dense(
            inputs: pooled,
            outputs: 200,
            kernel: try weights.tensor("dense.kernel", shape: [pooled, 200]),
            bias: try weights.tensor("dense.bias", shape: [200])
        )
        denseScale = try weights.tensor("dense.scale", shape: [200])
        denseShift = try weights.tensor("dense.shift", shape: [200])
        output = Dense(
            inputs: 200,
            outputs: tags.count,
            kernel: try weights.tensor("output.kernel", shape: [200, tags.count]),
            bias: try weights.tensor("output.bias", shape: [tags.count])
        )
    }

    /// Runs one patch of `patchFrames` × `bandCount` log-mel values (row-major).
    ///
    /// - Returns: The tag probabilities (sigmoid of the logits) and the embedding.
    func run(patch: UnsafeBufferPointer<Float>) -> (probabilities: [Float], embedding: [Float]) {
        let (frames, bands) = (Self.patchFrames, Self.bandCount)
        precondition(patch.count == frames * bands)
        let input = patch.map { $0 * inputScale + inputShift }
        var scratch = [Float]()
        var product = [Float]()

        // Front end: [timbral74, timbral77, temporal128, temporal64, temporal32] per frame.
        let featureCount = frontendFeatures + midend.reduce(0) { $0 + $1.filters }
        var features = [Float](repeating: 0, count: frames * featureCount)
        var column = 0
        for layer in timbral + temporal {
            // Timbral layers pad 3 frames each side ("valid" over the padded input); temporal
            // ones pad as TensorFlow's "same" does, the odd frame after.
            let before = (layer.frames - 1) / 2
            let positions = bands - layer.width + 1
            let rows = frames * positions
            let depth = layer.frames * layer.width
            if scratch.count < rows * depth { scratch = [Float](repeating: 0, count: rows * depth) }
            scratch.withUnsafeMutableBufferPointer { columns in
                for frame in 0..<frames {
                    for position in 0..<positions {
                        let row = columns.baseAddress! + (frame * positions + position) * depth
                        for offset in 0..<layer.frames {
                            let source = frame + offset - before
                            let target = row + offset * layer.width
                            if source < 0 || source >= frames {
                                target.update(repeating: 0, count: layer.width)
                            } else {
                                input.withUnsafeBufferPointer {
                                    target.update(from: $0.baseAddress! + source * bands + position, count: layer.width)
                                }
                            }
                        }
                    }
                }
            }
            multiply(scratch, rows: rows, depth: depth, by: layer, into: &product)
            // ReLU, batch norm, then the max over the frequency positions.
            for frame in 0..<frames {
                for filter in 0..<layer.filters {
                    var maximum = -Float.infinity
                    for position in 0..<positions {
                        let value = max(0, product[(frame * positions + position) * layer.filters + filter])
                        maximum = max(maximum, value * layer.scale[filter] + layer.shift[filter])
                    }
                    features[frame * featureCount + column + filter] = maximum
                }
            }
            column += layer.filters
        }

        // Mid end: three convolutions over all the features of 7 frames, the last two residual.
        var layerInput = (start: 0, width: column)
        for (index, layer) in midend.enumerated() {
            let depth = layer.frames * layer.width
            if scratch.count < frames * depth { scratch = [Float](repeating: 0, count: frames * depth) }
            let before = (layer.frames - 1) / 2
            scratch.withUnsafeMutableBufferPointer { columns in
                features.withUnsafeBufferPointer { features in
                    for frame in 0..<frames {
                        for offset in 0..<layer.frames {
                            let source = frame + offset - before
                            let target = columns.baseAddress! + frame * depth + offset * layer.width
                            if source < 0 || source >= frames {
                                target.update(repeating: 0, count: layer.width)
                            } else {
                                target.update(
                                    from: features.baseAddress! + source * featureCount + layerInput.start,
                                    count: layer.width
                                )
                            }
                        }
                    }
                }
            }
            multiply(scratch, rows: frames, depth: depth, by: layer, into: &product)
            for frame in 0..<frames {
                for filter in 0..<layer.filters {
                    let value =
                        max(0, product[frame * layer.filters + filter]) * layer.scale[filter] + layer.shift[filter]
                    let residual = index == 0 ? 0 : features[frame * featureCount + layerInput.start + filter]
                    features[frame * featureCount + column + filter] = value + residual
                }
            }
            layerInput = (column, layer.filters)
            column += layer.filters
        }

        // Back end: max and mean over time, interleaved per feature as TensorFlow flattens them.
        var pooled = [Float](repeating: 0, count: 2 * featureCount)
        for feature in 0..<featureCount {
            var maximum = -Float.infinity
            var sum: Float = 0
            for frame in 0..<frames {
                let value = features[frame * featureCount + feature]
                maximum = max(maximum, value)
                sum += value
            }
            pooled[2 * feature] = maximum
            pooled[2 * feature + 1] = sum / Float(frames)
        }
        var embedding = apply(dense, to: pooled)
        for unit in embedding.indices {
            embedding[unit] = max(0, embedding[unit]) * denseScale[unit] + denseShift[unit]
        }
        let probabilities = apply(output, to: embedding).map { 1 / (1 + exp(-$0)) }
        return (probabilities, embedding)
    }

    /// `columns` (`rows × depth`) times the layer's kernel (`depth × filters`), plus its bias.
    private func multiply(_ columns: [Float], rows: Int, depth: Int, by layer: Convolution, into product: inout [Float])
    {
        let count = rows * layer.filters
        if product.count < count { product = [Float](repeating: 0, count: count) }
        product.withUnsafeMutableBufferPointer { product in
            for row in 0..<rows {
                (product.baseAddress! + row * layer.filters).update(from: layer.bias, count: layer.filters)
            }
            cblas_sgemm(
                CblasRowMajor,
                CblasNoTrans,
                CblasNoTrans,
                Int32(rows),
                Int32(layer.filters),
                Int32(depth),
                1,
                columns,
                Int32(depth),
                layer.kernel,
                Int32(layer.filters),
                1,
                product.baseAddress,
                Int32(layer.filters)
            )
        }
    }

    private func apply(_ layer: Dense, to input: [Float]) -> [Float] {
        var result = layer.bias
        cblas_sgemv(
            CblasRowMajor,
            CblasTrans,
            Int32(layer.inputs),
            Int32(layer.outputs),
            1,
            layer.kernel,
            Int32(layer.outputs),
            input,
            1,
            1,
            &result,
            1
        )
        return result
    }
}
