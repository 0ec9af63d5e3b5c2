import Foundation

/// The complex-domain onset detection function of Bello et al. (2004), as Essentia's
/// `OnsetDetection` computes it for the beat trackers of its `RhythmExtractor2013`: over the
/// signal at 44.1 kHz (``sampleRate``, what Essentia's extractor requires), Hann-windowed frames of
/// 2,048 samples every 1,024 (46 ms every 23 ms), the first starting on the first sample; per frame,
/// the sum over the bins of the distance between each bin and its prediction from the previous two
/// frames (the previous magnitude, the phase advanced as before).
///
/// The rate matters beyond the frame durations: the same frames at 22,050 Hz, after
/// libswresample's default resampler, move Essentia's own Degara tempo from 90 to 110 BPM on one
/// corpus song whose multi-feature tempo is 90 (`Benchmarks/RESULTS.md`).
final class ComplexDomainOnsets {
    /// The rate of the signal the function is computed from, in Hz.
    static let sampleRate = 44_100
    static let frameSize = 2048
    static let hopSize = 1024

    /// Values of the function per second.
    static var valuesPerSecond: Double { Double(sampleRate) / Double(hopSize) }

    private let fft: AubioFFT
    private let window: [Float]
    private var frames = FrameBuffer(frameSize: frameSize, hopSize: hopSize)
    private var previousMagnitudes: [Float]
    private var previousPhases: [Float]
    private var olderPhases: [Float]

    /// One value per hop.
    private(set) var values: [Float] = []

    /// - Throws: ``LibraryCallFailure`` when aubio cannot make its FFT.
    init() throws {
        fft = try AubioFFT(size: Self.frameSize)
        window = (0..<Self.frameSize).map { 0.5 - 0.5 * cos(2 * Float.pi * Float($0) / Float(Self.frameSize - 1)) }
        previousMagnitudes = [Float](repeating: 0, count: Self.frameSize / 2 + 1)
        previousPhases = previousMagnitudes
        olderPhases = previousMagnitudes
    }

    /// Adds mono samples.
    func add(_ samples: UnsafeBufferPointer<Float>) {
        frames.add(samples) { processFrame($0) }
    }

    private func processFrame(_ samples: UnsafeBufferPointer<Float>) {
        let data = fft.input
        for i in 0..<Self.frameSize { data[i] = samples[i] * window[i] }
        fft.transform()
        let norm = fft.magnitudes
        let phase = fft.phases
        var sum: Float = 0
        for k in 0...(Self.frameSize / 2) {
            // Rotated so that the prediction lies on the real axis: |m₁ − m e^{i(φ − φ̂)}|.
            let angle = phase[k] - (2 * previousPhases[k] - olderPhases[k])
            let re = previousMagnitudes[k] - norm[k] * cos(angle)
            let im = norm[k] * sin(angle)
            sum += (re * re + im * im).squareRoot()
            olderPhases[k] = previousPhases[k]
            previousPhases[k] = phase[k]
            previousMagnitudes[k] = norm[k]
        }
        values.append(sum)
    }
}
