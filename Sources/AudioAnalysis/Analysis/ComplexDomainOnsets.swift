import CAubio
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

    private let fft: OpaquePointer
    private let frame: UnsafeMutablePointer<fvec_t>
    private let spectrum: UnsafeMutablePointer<cvec_t>
    private let window: [Float]
    private var pending: [Float] = []
    private var previousMagnitudes: [Float]
    private var previousPhases: [Float]
    private var olderPhases: [Float]

    /// One value per hop.
    private(set) var values: [Float] = []

    /// - Throws: ``LibraryCallFailure`` when aubio cannot make its FFT or vectors; whatever was
    ///   made is freed.
    init() throws {
        let size = UInt32(Self.frameSize)
        let made = AubioObjects.withCreationLock { (new_aubio_fft(size), new_fvec(size), new_cvec(size)) }
        guard let fft = made.0, let frame = made.1, let spectrum = made.2, frame.pointee.data != nil else {
            if let fft = made.0 { del_aubio_fft(fft) }
            if let frame = made.1 { del_fvec(frame) }
            if let spectrum = made.2 { del_cvec(spectrum) }
            throw LibraryCallFailure(call: made.0 == nil ? "new_aubio_fft" : made.1 == nil ? "new_fvec" : "new_cvec")
        }
        (self.fft, self.frame, self.spectrum) = (fft, frame, spectrum)
        window = (0..<Self.frameSize).map { 0.5 - 0.5 * cos(2 * Float.pi * Float($0) / Float(Self.frameSize - 1)) }
        previousMagnitudes = [Float](repeating: 0, count: Self.frameSize / 2 + 1)
        previousPhases = previousMagnitudes
        olderPhases = previousMagnitudes
        pending.reserveCapacity(Self.frameSize * 2)
    }

    deinit {
        del_aubio_fft(fft)
        del_fvec(frame)
        del_cvec(spectrum)
    }

    /// Adds mono samples.
    func add(_ samples: UnsafeBufferPointer<Float>) {
        pending.append(contentsOf: samples)
        var start = 0
        while pending.count - start >= Self.frameSize {
            processFrame(at: start)
            start += Self.hopSize
        }
        if start > 0 { pending.removeFirst(start) }
    }

    private func processFrame(at start: Int) {
        let data = frame.pointee.data!
        pending.withUnsafeBufferPointer { samples in
            for i in 0..<Self.frameSize { data[i] = samples[start + i] * window[i] }
        }
        aubio_fft_do(fft, frame, spectrum)
        let norm = spectrum.pointee.norm!
        let phase = spectrum.pointee.phas!
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
