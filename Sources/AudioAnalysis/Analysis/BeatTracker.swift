import CAubio
import Foundation

/// Beats and onsets of the mono analysis signal, with aubio's beat tracker and onset detector
/// (complex-domain), fed a hop at a time. The tempo is not theirs: ``TempoEstimator`` reads it
/// from ``ComplexDomainOnsets``.
final class BeatTracker {
    /// Samples between two analysis frames: 11.6 ms at 22,050 Hz.
    static let hopSize = 256
    /// The analysis window: 46 ms at 22,050 Hz.
    static let windowSize = 1024

    private let tempo: OpaquePointer
    private let onset: OpaquePointer
    private let input: UnsafeMutablePointer<fvec_t>
    private let output: UnsafeMutablePointer<fvec_t>
    private let onsetOutput: UnsafeMutablePointer<fvec_t>
    private var filled = 0
    private let sampleRate: Int
    private var hops = 0

    /// Beat times in seconds.
    private(set) var beats: [Double] = []
    /// The number of onsets detected.
    private(set) var onsetCount = 0
    /// Root-mean-square level of each hop: the envelope the modulation measures read.
    private(set) var envelope: [Float] = []

    /// - Throws: ``LibraryCallFailure`` when aubio cannot make its objects (out of memory, or a
    ///   rate it refuses); whatever was made is freed.
    init(sampleRate: Int) throws {
        self.sampleRate = sampleRate
        let rate = UInt32(clamping: sampleRate)
        let made = AubioObjects.withCreationLock {
            (
                new_aubio_tempo("default", UInt32(Self.windowSize), UInt32(Self.hopSize), rate),
                new_aubio_onset("complex", UInt32(Self.windowSize), UInt32(Self.hopSize), rate),
                new_fvec(UInt32(Self.hopSize)), new_fvec(1), new_fvec(1)
            )
        }
        guard let tempo = made.0, let onset = made.1, let input = made.2, let output = made.3,
            let onsetOutput = made.4, input.pointee.data != nil, output.pointee.data != nil,
            onsetOutput.pointee.data != nil
        else {
            if let tempo = made.0 { del_aubio_tempo(tempo) }
            if let onset = made.1 { del_aubio_onset(onset) }
            for vector in [made.2, made.3, made.4] { if let vector { del_fvec(vector) } }
            throw LibraryCallFailure(
                call: made.0 == nil ? "new_aubio_tempo" : made.1 == nil ? "new_aubio_onset" : "new_fvec"
            )
        }
        (self.tempo, self.onset, self.input, self.output, self.onsetOutput) = (tempo, onset, input, output, onsetOutput)
        envelope.reserveCapacity(sampleRate / Self.hopSize * 600)
    }

    deinit {
        del_aubio_tempo(tempo)
        del_aubio_onset(onset)
        del_fvec(input)
        del_fvec(output)
        del_fvec(onsetOutput)
    }

    /// Adds mono samples.
    func add(_ samples: UnsafeBufferPointer<Float>) {
        var index = 0
        let data = input.pointee.data!
        while index < samples.count {
            let count = min(Self.hopSize - filled, samples.count - index)
            for offset in 0..<count { data[filled + offset] = samples[index + offset] }
            filled += count
            index += count
            if filled == Self.hopSize {
                processHop()
                filled = 0
            }
        }
    }

    private func processHop() {
        let data = input.pointee.data!
        var energy: Float = 0
        for i in 0..<Self.hopSize { energy += data[i] * data[i] }
        envelope.append((energy / Float(Self.hopSize)).squareRoot())
        aubio_tempo_do(tempo, input, output)
        if output.pointee.data[0] != 0 { beats.append(Double(aubio_tempo_get_last_s(tempo))) }
        aubio_onset_do(onset, input, onsetOutput)
        if onsetOutput.pointee.data[0] != 0 { onsetCount += 1 }
        hops += 1
    }

    /// aubio's confidence in its current tempo estimate, 0 to about 1.
    var confidence: Double { Double(aubio_tempo_get_confidence(tempo)) }

    /// Seconds of audio seen so far.
    var seconds: Double { Double(hops * Self.hopSize) / Double(sampleRate) }
}

/// aubio creates FFTW plans when its objects are made, and FFTW's planner is not thread-safe: every
/// aubio object in this module is made under one lock.
enum AubioObjects {
    private static let lock = NSLock()

    static func withCreationLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
