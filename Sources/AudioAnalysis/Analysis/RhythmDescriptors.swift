import Foundation

/// What the beat list and the level envelope say about rhythm: the regularity of the beats and
/// how much the level moves at the rate of syllables.
enum RhythmDescriptors {
    /// 1 for a metronome, falling to 0 as the spread of the beat intervals reaches 25 % of their mean.
    static func regularity(beats: [Double]) -> Double {
        let intervals = Self.intervals(beats)
        guard intervals.count >= 7 else { return 0 }
        let mean = intervals.reduce(0, +) / Double(intervals.count)
        let variance = intervals.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(intervals.count)
        return max(0, 1 - variance.squareRoot() / mean / 0.25)
    }

    private static func intervals(_ beats: [Double]) -> [Double] {
        let settled = beats.filter { $0 >= 5 }
        let usable = settled.count >= 8 ? settled : beats
        return zip(usable.dropFirst(), usable).map { $0 - $1 }.filter { $0 > 0.2 && $0 < 2 }
    }

    /// The share of the level envelope's modulation (0.5–10 Hz) that lies between 3 and 6 Hz, the
    /// rate of syllables in speech and singing. Averaged over windows of about 6 seconds; 0 when the
    /// envelope is shorter than one window.
    static func syllabicModulation(envelope: [Float], hopSeconds: Double) -> Double {
        let window = 512
        guard envelope.count >= window else { return 0 }
        let rate = 1 / hopSeconds
        let binHz = rate / Double(window)
        let lowBin = max(1, Int(0.5 / binHz))
        let highBin = Int(10 / binHz)
        let syllableBins = Int(3 / binHz)...Int(6 / binHz)
        var shares: [Double] = []
        var start = 0
        var cosines = [[Double]]()
        var sines = [[Double]]()
        for bin in lowBin...highBin {
            cosines.append((0..<window).map { cos(2 * .pi * Double(bin * $0) / Double(window)) })
            sines.append((0..<window).map { sin(2 * .pi * Double(bin * $0) / Double(window)) })
        }
        while start + window <= envelope.count {
            let slice = envelope[start..<(start + window)].map(Double.init)
            let mean = slice.reduce(0, +) / Double(window)
            if mean > 1e-4 {
                var total = 0.0
                var syllabic = 0.0
                for (offset, bin) in (lowBin...highBin).enumerated() {
                    var re = 0.0
                    var im = 0.0
                    for i in 0..<window {
                        let value = slice[i] / mean - 1
                        re += value * cosines[offset][i]
                        im += value * sines[offset][i]
                    }
                    let power = re * re + im * im
                    total += power
                    if syllableBins.contains(bin) { syllabic += power }
                }
                if total > 0 { shares.append(syllabic / total) }
            }
            start += window / 2
        }
        return shares.isEmpty ? 0 : shares.reduce(0, +) / Double(shares.count)
    }
}
