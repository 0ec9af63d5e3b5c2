import Foundation

/// The harmonic pitch-class profile of the mono analysis signal as Essentia's `KeyExtractor`
/// computes it, for ``KeyEstimator``.
///
/// A port of Essentia's chain, with `KeyExtractor`'s settings: frames of 93 ms a hop apart with no
/// overlap (4,096 samples at 44.1 kHz in Essentia; 2,048 at the 22,050 Hz analysis rate here, which
/// gives the same 10.8 Hz bins), the first centred on the first sample; a Hann window scaled to an
/// area of 2; the magnitude spectrum; up to 60 of its peaks between 25 Hz and 3.5 kHz above 10⁻⁴,
/// located by a parabola through the linear magnitudes, the strongest first (`SpectralPeaks`);
/// each peak's level over the spectral envelope, tilted down by 5 dB per kHz (`SpectralWhitening`);
/// and those whitened levels, squared, credited to 12 semitone bins (bin 0 on A at 440 Hz) with a
/// cosine window one semitone wide, from each peak as the 1st to 5th harmonic of its fundamental
/// (`HPCP` with 4 harmonics: the octaves fold onto the same pitch class). Frames are added
/// unnormalised; ``profile()`` is their mean, like Essentia's streaming `Key`.
final class HarmonicPitchClassProfile {
    static let frameSize = 2048
    static let minimumHz = 25.0
    static let maximumHz = 3500.0
    static let peakThreshold: Float = 1e-4
    static let maximumPeaks = 60

    /// Each harmonic folded into the octave: its distance in semitones above the fundamental's
    /// pitch class and its weight, as Essentia's `HPCP` tabulates them (harmonics 1, 2 and 4 fall
    /// on the fundamental's own class and add up to 3).
    static let harmonics: [(semitones: Double, weight: Double)] = {
        var table: [(semitones: Double, weight: Double)] = []
        for harmonic in 1...5 {
            var semitones = 12 * log2(Double(harmonic))
            let weight = 1 / max(1, semitones / 12 * 0.5)
            while semitones >= 12 - 1e-5 { semitones -= 12 }
            if let index = table.firstIndex(where: { abs($0.semitones - semitones) < 1e-5 }) {
                table[index].weight += weight
            } else {
                table.append((semitones, weight))
            }
        }
        return table
    }()

    private let sampleRate: Double
    private let fft: AubioFFT
    private let window: [Float]
    // The first frame is centred on the first sample, as Essentia's `FrameCutter` cuts them.
    private var frames = FrameBuffer(frameSize: frameSize, hopSize: frameSize, padding: frameSize / 2)
    private var magnitudes: [Float]
    private var sum = [Double](repeating: 0, count: 12)
    private(set) var frameCount = 0

    /// - Throws: ``LibraryCallFailure`` when aubio cannot make its FFT.
    init(sampleRate: Int) throws {
        self.sampleRate = Double(sampleRate)
        fft = try AubioFFT(size: Self.frameSize)
        let hann = (0..<Self.frameSize).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(Self.frameSize - 1)) }
        let area = hann.reduce(0, +)
        window = hann.map { Float($0 * 2 / area) }
        magnitudes = [Float](repeating: 0, count: Self.frameSize / 2 + 1)
    }

    /// Adds mono samples.
    func add(_ samples: UnsafeBufferPointer<Float>) {
        frames.add(samples) { processFrame($0) }
    }

    /// The mean profile over the frames, 12 bins from C (Essentia's starts from A); all zeros
    /// before any frame.
    func pitchClassProfile() -> [Double] {
        let fromA = profile()
        return (0..<12).map { fromA[($0 + 3) % 12] }
    }

    /// The mean profile over the frames, 12 bins from A; all zeros before any frame.
    ///
    /// Essentia's `FrameCutter` also cuts a last frame that starts before the end of the signal,
    /// padded with zeros; so does this.
    func profile() -> [Double] {
        if frames.remaining > Self.frameSize / 2 || (frameCount == 0 && frames.remaining > 0) {
            frames.flush { processFrame($0) }
        }
        guard frameCount > 0 else { return sum }
        return sum.map { $0 / Double(frameCount) }
    }

    private func processFrame(_ samples: UnsafeBufferPointer<Float>) {
        frameCount += 1
        let data = fft.input
        for i in 0..<Self.frameSize { data[i] = samples[i] * window[i] }
        fft.transform()
        let norm = fft.magnitudes
        for k in magnitudes.indices { magnitudes[k] = norm[k] }
        let peaks = Self.spectralPeaks(of: magnitudes, sampleRate: sampleRate)
        guard !peaks.isEmpty else { return }
        let whitened = Self.whitened(peaks, spectrum: magnitudes, sampleRate: sampleRate)
        for (peak, magnitude) in zip(peaks, whitened) {
            guard peak.hz >= Self.minimumHz, peak.hz <= Self.maximumHz else { continue }
            for harmonic in Self.harmonics {
                let hz = peak.hz * pow(2, -harmonic.semitones / 12)
                Self.credit(hz: hz, energy: magnitude * magnitude * harmonic.weight * harmonic.weight, to: &sum)
            }
        }
    }

    /// Adds `energy` to the semitone bins within half a semitone of `hz`, weighted by a cosine of
    /// the distance (Essentia's `HPCP`, `weightType` cosine, `windowSize` 1).
    static func credit(hz: Double, energy: Double, to bins: inout [Double]) {
        let position = log2(hz / 440) * 12
        let left = Int((position - 0.5).rounded(.up))
        let right = Int((position + 0.5).rounded(.down))
        guard left <= right else { return }
        for bin in left...right {
            let weight = cos(Double.pi * abs(position - Double(bin)))
            bins[((bin % 12) + 12) % 12] += weight * energy
        }
    }

    // MARK: - Spectral peaks

    struct Peak {
        var hz: Double
        var magnitude: Double
    }

    /// The peaks of `spectrum` as Essentia's `SpectralPeaks` (over `PeakDetection`) finds them
    /// with `KeyExtractor`'s settings, strongest first.
    static func spectralPeaks(of spectrum: [Float], sampleRate: Double) -> [Peak] {
        let size = spectrum.count
        let scale = sampleRate / 2 / Double(size - 1)
        var peaks: [Peak] = []
        var i = max(0, Int((minimumHz / scale).rounded(.up)))
        if i + 1 < size, spectrum[i] > spectrum[i + 1], spectrum[i] > peakThreshold {
            peaks.append(Peak(hz: Double(i) * scale, magnitude: Double(spectrum[i])))
        }
        while true {
            while i + 1 < size - 1, spectrum[i] >= spectrum[i + 1] { i += 1 }
            while i + 1 < size - 1, spectrum[i] < spectrum[i + 1] { i += 1 }
            var j = i
            while j + 1 < size - 1, spectrum[j] == spectrum[j + 1] { j += 1 }
            if j + 1 < size - 1, spectrum[j + 1] < spectrum[j], spectrum[j] > peakThreshold {
                var bin: Double
                var value: Double
                if j != i {
                    bin = Double(i + j) * 0.5
                    value = Double(spectrum[i])
                } else {
                    let (left, middle, right) = (Double(spectrum[j - 1]), Double(spectrum[j]), Double(spectrum[j + 1]))
                    let delta = 0.5 * (left - right) / (left - 2 * middle + right)
                    bin = Double(j) + delta
                    value = middle - 0.25 * (left - right) * delta
                }
                if bin * scale > maximumHz { break }
                peaks.append(Peak(hz: bin * scale, magnitude: value))
            }
            i = j
            if i + 1 >= size - 1 { break }
        }
        peaks.sort { $0.magnitude != $1.magnitude ? $0.magnitude > $1.magnitude : $0.hz < $1.hz }
        return Array(peaks.prefix(maximumPeaks))
    }

    // MARK: - Spectral whitening

    /// The peaks' magnitudes relative to the spectral envelope, as Essentia's `SpectralWhitening`
    /// computes them: the envelope is an energy-weighted mean of the power in a band around every
    /// 100 Hz up to 1.2 × 3.5 kHz, a peak at or above the envelope keeps 0 dB, one below it keeps
    /// its distance down to −30 dB (−200 dB below that), and every peak loses 5 dB per kHz.
    static func whitened(_ peaks: [Peak], spectrum: [Float], sampleRate: Double) -> [Double] {
        let maximumHz = Self.maximumHz * 1.2
        let range = sampleRate / 2
        let size = spectrum.count
        let step = 100.0
        var envelope: [Double] = []
        var frequency = 0.0
        while frequency <= maximumHz, frequency <= range {
            let lower = frequency - max(50, frequency * 0.34)
            let upper = frequency + max(50, frequency * 0.58)
            var b = Int(lower / range * (Double(size) - 1) + 0.5)
            var e = Int(upper / range * (Double(size) - 1) + 0.5)
            b = min(size - 1, max(b, 0))
            e = min(size, max(e, b + 1))
            let centre = Double(b) / 2 + Double(e) / 2
            let halfWidth = Double(e) - centre
            var total = 0.0
            var weights = 0.0
            for index in b..<e {
                var weight = 1 - abs(Double(index) - centre) / halfWidth
                weight *= weight
                weight *= weight
                let energy = Double(spectrum[index]) * Double(spectrum[index])
                weight *= energy
                total += energy * weight
                weights += weight
            }
            envelope.append(weights != 0 ? total / weights : total)
            frequency += step
        }
        if envelope.count >= 2 { envelope[envelope.count - 1] = envelope[envelope.count - 2] }
        let envelopeDB = envelope.map { decibels(ofPower: $0) }
        return peaks.map { peak in
            let level = 2 * decibels(ofPower: peak.magnitude)
            var white: Double
            if peak.hz > maximumHz - step {
                white = level
            } else {
                let segment = min(envelopeDB.count - 2, max(0, Int((peak.hz / step).rounded(.up)) - 1))
                let x0 = Double(segment) * step
                let floor =
                    envelopeDB[segment] + (peak.hz - x0) * (envelopeDB[segment + 1] - envelopeDB[segment]) / step
                white = level > floor ? 0 : level > floor - 30 ? level - floor : -200
                white -= 20 * peak.hz / 4000
            }
            return pow(10, white / 20)
        }
    }

    /// 10 log₁₀ of `power`, −100 below 10⁻¹⁰ (Essentia's `lin2db`).
    private static func decibels(ofPower power: Double) -> Double {
        power < 1e-10 ? -100 : 10 * log10(power)
    }
}
