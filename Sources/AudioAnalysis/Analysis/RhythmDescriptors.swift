import Foundation

/// What the beat list and the level envelope say about rhythm: tempo, its regularity, the metre,
/// and how much the level moves at the rate of syllables.
enum RhythmDescriptors {
    /// Tempo in BPM from the beats: 60 over the median interval between beats after the first
    /// five seconds (where the tracker is still settling), or `nil` with fewer than 8 beats.
    static func tempo(beats: [Double]) -> Double? {
        let intervals = Self.intervals(beats)
        guard intervals.count >= 7 else { return nil }
        let median = intervals.sorted()[intervals.count / 2]
        return median > 0 ? 60 / median : nil
    }

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

    /// Beats per bar, 3 or 4, with a confidence from 0 to 1, from the accents on the beats: the
    /// rise of the level envelope at each beat, averaged per position in a bar of 3 and of 4. The
    /// bar whose strongest position stands out most wins; 4 unless 3 stands out clearly more, since
    /// most music is in 4. `nil` with fewer than 24 beats.
    static func timeSignature(beats: [Double], envelope: [Float], hopSeconds: Double) -> (Int, Double)? {
        guard beats.count >= 24, !envelope.isEmpty else { return nil }
        let accents: [Double] = beats.map { time in
            let index = Int(time / hopSeconds)
            guard index >= 4, index + 4 < envelope.count else { return 0 }
            let after = envelope[index...(index + 3)].max() ?? 0
            let before = envelope[(index - 4)..<index].reduce(0, +) / 4
            return Double(max(0, after - before))
        }
        func contrast(_ metre: Int) -> Double {
            var sums = [Double](repeating: 0, count: metre)
            var counts = [Double](repeating: 0, count: metre)
            for (index, accent) in accents.enumerated() {
                sums[index % metre] += accent
                counts[index % metre] += 1
            }
            let means = zip(sums, counts).map { $1 > 0 ? $0 / $1 : 0 }
            let overall = accents.reduce(0, +) / Double(accents.count)
            guard overall > 0, let strongest = means.max() else { return 0 }
            let others = (means.reduce(0, +) - strongest) / Double(metre - 1)
            return (strongest - others) / overall
        }
        let three = contrast(3)
        let four = contrast(4)
        if three > four * 1.5, three > 0.3 {
            return (3, min(0.8, (three - four) / three))
        }
        return (4, min(0.8, max(0.2, four)))
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
