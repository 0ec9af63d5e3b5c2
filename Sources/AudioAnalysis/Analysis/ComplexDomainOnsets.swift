import Foundation

/// The complex-domain onset detection function of Bello et al. (2004), as Essentia's
/// `OnsetDetection` computes it for its `BeatTrackerDegara`: Hann-windowed frames of 1,024 samples
/// every 512 (46 ms every 23 ms at 22,050 Hz; Essentia's 2,048 and 1,024 at 44.1 kHz), the first
/// starting on the first sample; per frame, the sum over the bins of the distance between each bin
/// and its prediction from the previous two frames (the previous magnitude, the phase advanced as
/// before).
final class ComplexDomainOnsets {
    static let frameSize = 1024
    static let hopSize = 512

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
