import CBLAS
import Foundation

/// musicnn's input: a log-compressed mel spectrogram of 16 kHz mono audio, computed as a stream.
///
/// It matches `librosa.feature.melspectrogram(y, sr: 16000, n_fft: 512, hop_length: 256,
/// n_mels: 96)` (a periodic Hann window, frames centred on every 256th sample with zeros beyond
/// both ends, the power spectrum, Slaney's mel scale and area normalisation up to 8 kHz), rounded
/// to `Float16` as musicnn's training data was stored, then `log10(10000 x + 1)`. The DFT is a
/// matrix product (`cblas_sgemm`) over a block of frames.
final class LogMelSpectrogram {
    static let fftSize = 512
    static let hop = 256
    static let bandCount = 96
    static let binCount = fftSize / 2 + 1

    /// The frames of each block computed at once.
    let blockFrames: Int
    /// `[cos | −sin]` of the window-weighted DFT: `fftSize × 2·binCount`, row-major.
    private let dft: [Float]
    /// The mel filterbank, transposed: `binCount × bandCount`, row-major.
    private let melBasis: [Float]
    /// Samples not yet consumed; starts with the `fftSize / 2` zeros of librosa's centring.
    private var pending: [Float]
    private var frames: [Float]
    private var spectrum: [Float]
    private var power: [Float]
    private var mel: [Float]
    private var frameCount = 0
    private var isFinished = false

    /// Creates a spectrogram that hands out up to `blockFrames` rows of log-mel bands at a time.
    init(blockFrames: Int) {
        self.blockFrames = blockFrames
        dft = Self.makeDFT()
        melBasis = Self.makeMelBasis()
        pending = [Float](repeating: 0, count: Self.fftSize / 2)
        frames = [Float](repeating: 0, count: blockFrames * Self.fftSize)
        spectrum = [Float](repeating: 0, count: blockFrames * 2 * Self.binCount)
        power = [Float](repeating: 0, count: blockFrames * Self.binCount)
        mel = [Float](repeating: 0, count: blockFrames * Self.bandCount)
    }

    /// Adds mono samples at 16 kHz, calling `consume` with each block of log-mel rows
    /// (`rows × bandCount`, row-major) as the frames complete.
    func add(_ samples: UnsafeBufferPointer<Float>, _ consume: (UnsafeBufferPointer<Float>) -> Void) {
        pending.append(contentsOf: samples)
        drain(consume)
    }

    /// Ends the signal with librosa's trailing zeros and hands out the last rows.
    func finish(_ consume: (UnsafeBufferPointer<Float>) -> Void) {
        guard !isFinished else { return }
        isFinished = true
        pending.append(contentsOf: repeatElement(0, count: Self.fftSize / 2))
        drain(consume)
        if frameCount > 0 { emit(consume) }
    }

    private func drain(_ consume: (UnsafeBufferPointer<Float>) -> Void) {
        var start = 0
        while pending.count - start >= Self.fftSize {
            pending.withUnsafeBufferPointer { source in
                frames.withUnsafeMutableBufferPointer { target in
                    let row = target.baseAddress! + frameCount * Self.fftSize
                    row.update(from: source.baseAddress! + start, count: Self.fftSize)
                }
            }
            frameCount += 1
            start += Self.hop
            if frameCount == blockFrames { emit(consume) }
        }
        pending.removeFirst(start)
    }

    private func emit(_ consume: (UnsafeBufferPointer<Float>) -> Void) {
        let rows = frameCount
        frameCount = 0
        let (n, bins, bands) = (Int32(Self.fftSize), Int32(Self.binCount), Int32(Self.bandCount))
        cblas_sgemm(
            CblasRowMajor,
            CblasNoTrans,
            CblasNoTrans,
            Int32(rows),
            2 * bins,
            n,
            1,
            frames,
            n,
            dft,
            2 * bins,
            0,
            &spectrum,
            2 * bins
        )
        let binCount = Self.binCount
        spectrum.withUnsafeBufferPointer { spectrum in
            power.withUnsafeMutableBufferPointer { power in
                for row in 0..<rows {
                    let values = spectrum.baseAddress! + row * 2 * binCount
                    for bin in 0..<binCount {
                        let (real, imaginary) = (values[bin], values[binCount + bin])
                        power[row * binCount + bin] = real * real + imaginary * imaginary
                    }
                }
            }
        }
        cblas_sgemm(
            CblasRowMajor,
            CblasNoTrans,
            CblasNoTrans,
            Int32(rows),
            bands,
            bins,
            1,
            power,
            bins,
            melBasis,
            bands,
            0,
            &mel,
            bands
        )
        for index in 0..<rows * Self.bandCount {
            let stored = Float(Float16(mel[index]))
            mel[index] = log10(10_000 * stored + 1)
        }
        mel.withUnsafeBufferPointer { consume(UnsafeBufferPointer(rebasing: $0[0..<rows * Self.bandCount])) }
    }

    // MARK: - Tables

    /// The periodic Hann window times the DFT's cosines and negated sines.
    private static func makeDFT() -> [Float] {
        let (n, bins) = (fftSize, binCount)
        var table = [Float](repeating: 0, count: n * 2 * bins)
        for sample in 0..<n {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(sample) / Double(n))
            for bin in 0..<bins {
                // The angle modulo n keeps the argument small and exact.
                let angle = 2 * Double.pi * Double((sample * bin) % n) / Double(n)
                table[sample * 2 * bins + bin] = Float(window * cos(angle))
                table[sample * 2 * bins + bins + bin] = Float(-window * sin(angle))
            }
        }
        return table
    }

    /// librosa's `filters.mel(sr: 16000, n_fft: 512, n_mels: 96)`: Slaney's mel scale (linear
    /// below 1 kHz, logarithmic above), triangles between neighbouring mel points over 0–8 kHz,
    /// each scaled by `2 / (upper − lower)` Hz so that it has unit area.
    private static func makeMelBasis() -> [Float] {
        let sampleRate = 16_000.0
        let fftFrequencies = (0..<binCount).map { Double($0) * sampleRate / Double(fftSize) }
        let lowest = hertzToMel(0)
        let highest = hertzToMel(sampleRate / 2)
        let melPoints = (0..<bandCount + 2).map {
            melToHertz(lowest + (highest - lowest) * Double($0) / Double(bandCount + 1))
        }
        var basis = [Float](repeating: 0, count: binCount * bandCount)
        for band in 0..<bandCount {
            let (lower, centre, upper) = (melPoints[band], melPoints[band + 1], melPoints[band + 2])
            let norm = 2 / (upper - lower)
            for (bin, frequency) in fftFrequencies.enumerated() {
                let rising = (frequency - lower) / (centre - lower)
                let falling = (upper - frequency) / (upper - centre)
                let weight = max(0, min(rising, falling))
                basis[bin * bandCount + band] = Float(weight * norm)
            }
        }
        return basis
    }

    private static let minimumLogHertz = 1000.0
    private static let linearMelStep = 200.0 / 3
    private static let logMelStep = log(6.4) / 27
    private static var minimumLogMel: Double { minimumLogHertz / linearMelStep }

    private static func hertzToMel(_ hertz: Double) -> Double {
        hertz < minimumLogHertz
            ? hertz / linearMelStep
            : minimumLogMel + log(hertz / minimumLogHertz) / logMelStep
    }

    private static func melToHertz(_ mel: Double) -> Double {
        mel < minimumLogMel
            ? mel * linearMelStep
            : minimumLogHertz * exp(logMelStep * (mel - minimumLogMel))
    }
}
