import Foundation

/// Audio signals made in a test, with known tempo, key and level, and a WAV writer for them.
public enum TestSignals {
    /// A click track: a 5 ms burst of a decaying 2 kHz tone on every beat, accented (louder and an
    /// octave lower) on the first of each bar.
    public static func clicks(bpm: Double, seconds: Double, beatsPerBar: Int = 4, sampleRate: Int = 44_100) -> [Float] {
        var samples = [Float](repeating: 0, count: Int(seconds * Double(sampleRate)))
        let period = 60 / bpm
        var beat = 0
        var time = 0.1
        while time < seconds {
            let start = Int(time * Double(sampleRate))
            let isDownbeat = beat % beatsPerBar == 0
            let level: Float = isDownbeat ? 0.9 : 0.5
            let hz = isDownbeat ? 1000.0 : 2000.0
            for i in 0..<Int(0.03 * Double(sampleRate)) where start + i < samples.count {
                let t = Double(i) / Double(sampleRate)
                samples[start + i] += level * Float(exp(-t * 150) * sin(2 * .pi * hz * t))
            }
            beat += 1
            time += period
        }
        return samples
    }

    /// A chord progression in a key: each chord held for `secondsPerChord`, its notes as tones
    /// with 6 harmonics of falling strength, in the octave of middle C with the root an octave below.
    ///
    /// - Parameters:
    ///   - tonic: Pitch class of the key's tonic, 0 = C.
    ///   - isMajor: Major (I–IV–V–I) or minor (i–iv–V–i with the raised leading tone).
    public static func cadence(
        tonic: Int,
        isMajor: Bool,
        repeats: Int = 4,
        secondsPerChord: Double = 1.0,
        sampleRate: Int = 44_100
    ) -> [Float] {
        // Semitones above the tonic of each chord's notes.
        let chords: [[Int]] =
            isMajor
            ? [[0, 4, 7], [5, 9, 12], [7, 11, 14], [0, 4, 7]]
            : [[0, 3, 7], [5, 8, 12], [7, 11, 14], [0, 3, 7]]
        var samples: [Float] = []
        let frames = Int(secondsPerChord * Double(sampleRate))
        for _ in 0..<repeats {
            for chord in chords {
                let midi = chord.map { 60 + tonic + $0 } + [48 + tonic + chord[0]]
                for i in 0..<frames {
                    let t = Double(i) / Double(sampleRate)
                    let envelope = min(1, t / 0.02) * exp(-t * 1.2)
                    var value = 0.0
                    for note in midi {
                        let hz = 440 * pow(2, Double(note - 69) / 12)
                        for harmonic in 1...6 {
                            value += sin(2 * .pi * hz * Double(harmonic) * t) / Double(harmonic * harmonic)
                        }
                    }
                    samples.append(Float(0.12 * envelope * value))
                }
            }
        }
        return samples
    }

    /// A sine of `hz` with peak amplitude `dBFS` decibels below full scale.
    public static func sine(hz: Double, dBFS: Double, seconds: Double, sampleRate: Int = 48_000) -> [Float] {
        let amplitude = pow(10, dBFS / 20)
        return (0..<Int(seconds * Double(sampleRate))).map {
            Float(amplitude * sin(2 * .pi * hz * Double($0) / Double(sampleRate)))
        }
    }

    /// Uniform white noise at `amplitude`, from a fixed seed.
    public static func whiteNoise(seconds: Double, amplitude: Float = 0.3, sampleRate: Int = 44_100) -> [Float] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<Int(seconds * Double(sampleRate))).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return amplitude * (Float(state >> 40) / Float(1 << 24) * 2 - 1)
        }
    }

    /// Writes 16-bit PCM WAV: `channels` copies of `samples` (clipped to ±1).
    public static func writeWAV(_ samples: [Float], sampleRate: Int = 44_100, channels: Int = 1, to path: String) throws
    {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        let bytes = samples.count * channels * 2
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + bytes))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))
        append(UInt16(channels))
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * channels * 2))
        append(UInt16(channels * 2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(bytes))
        data.reserveCapacity(data.count + bytes)
        for sample in samples {
            let value = Int16(max(-1, min(1, sample)) * 32767)
            for _ in 0..<channels { append(value) }
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
