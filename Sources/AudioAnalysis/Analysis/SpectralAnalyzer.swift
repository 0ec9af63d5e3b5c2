import Foundation

/// Frames of the mono analysis signal through an FFT (aubio's, over FFTW), a hop at a time, into
/// the timbre descriptors the estimates read and a tuning-corrected pitch-class profile (the
/// descriptors' `tuning_cents` and `pitch_class_profile`); the key is read from Essentia's profile,
/// ``harmonicProfile``, which this analyser feeds the same samples.
///
/// The tuning-corrected profile is this module's own method, in the spirit of the harmonic pitch-class
/// profile (Gómez 2006): spectral peaks between 50 Hz and 5 kHz, located to a fraction of a bin by
/// parabolic interpolation, are credited to their own pitch and to the pitches of which they could be
/// the 2nd to 4th harmonic (with weights 1, ½, ⅓, ¼), into 120 bins per octave (10 cents). Each
/// frame is scaled to its own maximum before it is added, so a loud chorus does not outvote the
/// verses. The fine resolution lets ``pitchClassProfile()`` correct the recording's tuning at the
/// end, streaming, before it folds 120 bins into 12.
final class SpectralAnalyzer {
    static let frameSize = 4096
    static let hopSize = 2048
    static let fineBinsPerOctave = 120

    private let sampleRate: Double
    private let fft: AubioFFT
    private var window: [Float]
    private var frames = FrameBuffer(frameSize: frameSize, hopSize: hopSize)
    private var previousMagnitudes: [Float]
    private var magnitudes: [Float]
    private var fineFrame: [Double]
    /// Essentia's harmonic pitch-class profile, from which the key is read.
    let harmonicProfile: HarmonicPitchClassProfile

    /// The pitch-class profile, 10 cents per bin, bin 0 centred on C at A = 440 Hz.
    private(set) var fineProfile: [Double]
    private(set) var frameCount = 0
    private(set) var silentFrameCount = 0
    private var centroidSum = 0.0
    private var flatnessSum = 0.0
    private var highRatioSum = 0.0
    private var lowRatioSum = 0.0
    private var fluxSum = 0.0
    private var fluxSquares = 0.0

    /// - Throws: ``LibraryCallFailure`` when aubio cannot make its FFTs (out of memory).
    init(sampleRate: Int) throws {
        self.sampleRate = Double(sampleRate)
        harmonicProfile = try HarmonicPitchClassProfile(sampleRate: sampleRate)
        fft = try AubioFFT(size: Self.frameSize)
        window = (0..<Self.frameSize).map { 0.5 - 0.5 * cos(2 * Float.pi * Float($0) / Float(Self.frameSize)) }
        previousMagnitudes = [Float](repeating: 0, count: Self.frameSize / 2 + 1)
        magnitudes = previousMagnitudes
        fineFrame = [Double](repeating: 0, count: Self.fineBinsPerOctave)
        fineProfile = fineFrame
    }

    /// Adds mono samples.
    func add(_ samples: UnsafeBufferPointer<Float>) {
        harmonicProfile.add(samples)
        frames.add(samples) { processFrame($0) }
    }

    private func processFrame(_ samples: UnsafeBufferPointer<Float>) {
        let data = fft.input
        var energy: Float = 0
        for i in 0..<Self.frameSize {
            let value = samples[i] * window[i]
            data[i] = value
            energy += value * value
        }
        frameCount += 1
        // -70 dBFS mean power in the window: silence, which would only add noise to every average.
        guard energy / Float(Self.frameSize) > 1e-7 else {
            silentFrameCount += 1
            return
        }
        fft.transform()
        let norm = fft.magnitudes
        let binCount = Self.frameSize / 2 + 1
        for k in 0..<binCount { magnitudes[k] = norm[k] }
        addTimbre(binCount: binCount)
        addPitchClasses(binCount: binCount)
        swap(&magnitudes, &previousMagnitudes)
    }

    // MARK: - Timbre

    private func addTimbre(binCount: Int) {
        let binHz = sampleRate / Double(Self.frameSize)
        var total = 0.0
        var weighted = 0.0
        var logSum = 0.0
        var high = 0.0
        var low = 0.0
        var flux = 0.0
        var magnitudeSum = 0.0
        var previousSum = 0.0
        let first = max(1, Int(60 / binHz))
        for k in first..<binCount {
            let magnitude = Double(magnitudes[k])
            magnitudeSum += magnitude
            previousSum += Double(previousMagnitudes[k])
        }
        for k in first..<binCount {
            let magnitude = Double(magnitudes[k])
            let power = magnitude * magnitude
            let hz = Double(k) * binHz
            total += power
            weighted += power * hz
            logSum += log(power + 1e-12)
            if hz >= 4000 { high += power }
            if hz < 150 { low += power }
            if magnitudeSum > 0, previousSum > 0 {
                flux += max(0, magnitude / magnitudeSum - Double(previousMagnitudes[k]) / previousSum)
            }
        }
        let count = Double(binCount - first)
        guard total > 0 else { return }
        centroidSum += weighted / total
        flatnessSum += exp(logSum / count) / (total / count)
        highRatioSum += high / total
        lowRatioSum += low / total
        fluxSum += flux
        fluxSquares += flux * flux
    }

    /// Frames that held sound.
    var soundingFrameCount: Int { frameCount - silentFrameCount }

    /// The mean power-weighted spectral centroid, in Hz.
    var meanCentroid: Double { average(centroidSum) }
    /// The mean spectral flatness from 60 Hz up (0 for a pure tone, 1 for white noise).
    var meanFlatness: Double { average(flatnessSum) }
    /// The mean share of power at or above 4 kHz.
    var meanHighRatio: Double { average(highRatioSum) }
    /// The mean share of power below 150 Hz.
    var meanLowRatio: Double { average(lowRatioSum) }
    /// The mean positive spectral flux between frames (each spectrum scaled to sum 1).
    var meanFlux: Double { average(fluxSum) }

    private func average(_ sum: Double) -> Double {
        soundingFrameCount > 1 ? sum / Double(soundingFrameCount) : 0
    }

    // MARK: - Pitch classes

    private func addPitchClasses(binCount: Int) {
        let binHz = sampleRate / Double(Self.frameSize)
        let lowest = max(2, Int(50 / binHz))
        let highest = min(binCount - 2, Int(5000 / binHz))
        var frameMax: Float = 0
        for k in lowest...highest { frameMax = max(frameMax, magnitudes[k]) }
        guard frameMax > 0 else { return }
        let threshold = frameMax * 0.01
        for i in fineFrame.indices { fineFrame[i] = 0 }
        var credited = false
        for k in lowest...highest {
            let beta = magnitudes[k]
            guard beta > threshold, beta > magnitudes[k - 1], beta >= magnitudes[k + 1] else { continue }
            let a = log(Double(magnitudes[k - 1]) + 1e-12)
            let b = log(Double(beta) + 1e-12)
            let c = log(Double(magnitudes[k + 1]) + 1e-12)
            let denominator = a - 2 * b + c
            let offset = denominator == 0 ? 0 : 0.5 * (a - c) / denominator
            let hz = (Double(k) + offset) * binHz
            let amplitude = exp(b - 0.25 * (a - c) * offset)
            let weight = amplitude * amplitude
            for harmonic in 1...4 {
                let fundamental = hz / Double(harmonic)
                guard fundamental >= 50 else { break }
                fineFrame[Self.fineBin(of: fundamental)] += weight / Double(harmonic)
                credited = true
            }
        }
        guard credited, let maximum = fineFrame.max(), maximum > 0 else { return }
        for i in fineFrame.indices { fineProfile[i] += fineFrame[i] / maximum }
    }

    /// The 10-cent bin of `hz` in the octave, bin 0 centred on C (A = 440 Hz is bin 90).
    static func fineBin(of hz: Double) -> Int {
        let semitonesAboveC = 12 * log2(hz / 440) + 9
        let bin = Int((semitonesAboveC * 10).rounded()) % fineBinsPerOctave
        return bin < 0 ? bin + fineBinsPerOctave : bin
    }

    /// The tuning of the recording in cents from A = 440 Hz (−50 to +50), read from where the
    /// profile's energy sits within each semitone.
    func tuningCents() -> Double {
        var re = 0.0
        var im = 0.0
        for (bin, value) in fineProfile.enumerated() {
            let angle = 2 * Double.pi * Double(bin) / 10
            re += value * cos(angle)
            im += value * sin(angle)
        }
        guard re != 0 || im != 0 else { return 0 }
        return atan2(im, re) / (2 * .pi) * 100
    }

    /// The 12-bin pitch-class profile (C first), corrected for tuning, scaled to a maximum of 1;
    /// all zeros when nothing tonal was heard.
    func pitchClassProfile() -> [Double] {
        let tuningBins = tuningCents() / 10
        var profile = [Double](repeating: 0, count: 12)
        for (bin, value) in fineProfile.enumerated() where value > 0 {
            // Distance in semitones from each pitch class centre, with a cos² window ⅔ semitone wide each side.
            let position = (Double(bin) - tuningBins) / 10
            for pitchClass in 0..<12 {
                var distance = abs(position - Double(pitchClass))
                distance = min(distance, 12 - distance)
                guard distance < 2.0 / 3.0 else { continue }
                let weight = cos(distance / (2.0 / 3.0) * .pi / 2)
                profile[pitchClass] += value * weight * weight
            }
        }
        guard let maximum = profile.max(), maximum > 0 else { return profile }
        return profile.map { $0 / maximum }
    }
}
