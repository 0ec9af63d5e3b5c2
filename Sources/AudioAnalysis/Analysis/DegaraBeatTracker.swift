import Foundation

/// Beats and tempo from a complex-domain onset detection function: a port of Essentia's
/// `TempoTapDegara`, as its `BeatTrackerDegara` runs it, and of the tempo `RhythmExtractor2013`
/// reads from the beats.
///
/// The detection function (one value per 1,024 samples at 44.1 kHz, as Essentia computes it)
/// is scaled to a maximum of 1 and doubled in rate by linear interpolation. Davies and Plumbley's
/// method gives the beat period every 1.5 s: the function's local mean is subtracted, 6 s windows
/// are autocorrelated, a comb of four multiples of each period, weighted by a Rayleigh prior peaking
/// at 120 BPM, scores the periods from 40 to 208 BPM, and a Viterbi path through the scores keeps
/// the period from jumping. Degara's hidden Markov model then places the beats on the detection
/// function, the time since the last beat as its state, with a Gaussian of 25 ms around the
/// period. The tempo is the mean of the beat-to-beat tempos within 5 BPM of their most common
/// value (in 2-BPM bins).
///
/// - Complexity: O(*n*) in the length of the function, with a constant of about 130 states.
enum DegaraBeatTracker {
    struct Tempo {
        var bpm: Double
        /// The share of beat-to-beat tempos that lie within 5 BPM of `bpm`.
        var agreement: Double
        var beats: [Double]
    }

    static let slowestBPM = 40.0
    static let fastestBPM = 208.0
    private static let combs = 4
    private static let windowSeconds = 5.944308390022676
    private static let beatSpread = 0.025
    private static let alpha = 0.5

    /// The beats and tempo of `detections`, a non-negative onset detection function sampled
    /// `framesPerSecond` times a second; `nil` without two beats.
    static func tempo(of detections: [Float], framesPerSecond: Double) -> Tempo? {
        guard detections.count > 1, let peak = detections.max(), peak > 0 else { return nil }
        let rate = framesPerSecond * 2
        var function = [Double](repeating: 0, count: (detections.count - 1) * 2 + 1)
        for index in 0..<(detections.count - 1) {
            let value = Double(detections[index]) / Double(peak)
            let next = Double(detections[index + 1]) / Double(peak)
            function[2 * index] = value
            function[2 * index + 1] = value + (next - value) / 2
        }
        function[function.count - 1] = Double(detections[detections.count - 1]) / Double(peak)

        let periods = beatPeriods(of: function, rate: rate)
        let beats = beatFrames(of: function, periods: periods, rate: rate).map { Double($0) / rate }
        guard beats.count > 1 else { return nil }
        return tempo(ofBeats: beats)
    }

    /// The tempo `RhythmExtractor2013` reads from beat times: the mean of the beat-to-beat tempos
    /// within 5 BPM of the most common one.
    static func tempo(ofBeats beats: [Double]) -> Tempo? {
        let tempos = zip(beats.dropFirst(), beats).map { 60 / ($0 - $1) }
        guard let fastest = tempos.max() else { return nil }
        var counts = [Int](repeating: 0, count: Int(max(fastest / 2, 0) + 0.5) + 1)
        for tempo in tempos {
            let bin = Int(max(tempo / 2, 0) + 0.5)
            if bin < counts.count { counts[bin] += 1 }
        }
        let common =
            Double(counts.indices.max { counts[$0] < counts[$1] || (counts[$0] == counts[$1] && $0 > $1) }!) * 2
        let near = tempos.filter { abs(common - $0) < 5 }
        let bpm = near.isEmpty ? common : near.reduce(0, +) / Double(near.count)
        return Tempo(bpm: bpm, agreement: Double(near.count) / Double(tempos.count), beats: beats)
    }

    // MARK: - Beat periods (Davies)

    /// The beat period, in frames of `function`, for each hop of a quarter window.
    static func beatPeriods(of function: [Double], rate: Double) -> (periods: [Int], hopSeconds: Double) {
        let windowSize = Int((windowSeconds * rate).rounded())
        let hop = windowSize / combs
        let smoothing = Int(0.1 * rate)
        let rayleigh = pow((60 * rate / 120).rounded(), 2)
        var weights = (0..<hop).map { index -> Double in
            let tau = Double(index + 1)
            return tau / rayleigh * exp(-0.5 * tau * tau / rayleigh)
        }
        let weightSum = weights.reduce(0, +)
        weights = weights.map { $0 / weightSum }
        let shortest = combs - 1
        let longest = (windowSize - (combs - 1)) / combs - 1
        let fastestIndex = min(hop - 1, Int((60 / fastestBPM * rate).rounded(.down)) - 1)
        let slowestIndex = min(hop - 1, Int((60 / slowestBPM * rate).rounded(.up)) - 1)

        let thresholded = subtractingLocalMean(function, halfWidth: smoothing)
        var observations: [[Double]] = []
        var window = [Double](repeating: 0, count: windowSize)
        var start = 0
        while start < thresholded.count {
            let available = min(windowSize, thresholded.count - start)
            for i in 0..<windowSize { window[i] = i < available ? thresholded[start + i] : 0 }
            let correlation = unbiasedAutocorrelation(window)
            var scores = [Double](repeating: 0, count: hop)
            for comb in 1...combs {
                let width = Double(2 * comb - 1)
                for region in (1 - comb)...(comb - 1) {
                    for period in shortest...longest {
                        scores[period] += weights[period] * correlation[(period + 1) * comb - 1 + region] / width
                    }
                }
            }
            scores = subtractingLocalMean(scores, halfWidth: 8)
            for index in 0...fastestIndex { scores[index] = 0 }
            if slowestIndex + 1 < hop { for index in (slowestIndex + 1)..<hop { scores[index] = 0 } }
            observations.append(normalizedSum(scores))
            if start + windowSize >= thresholded.count { break }
            start += hop
        }
        // Essentia adds noise of 10⁻⁴ of the largest score to break ties; a fixed sequence here.
        let largest = observations.joined().max() ?? 0
        var generator = SplitMix(seed: 1)
        for t in observations.indices {
            for i in 0..<hop { observations[t][i] += 0.0001 * largest * generator.nextUnit() }
        }
        let path = viterbiPath(prior: weights, observations: observations, rate: rate)
        return (path.map { $0 + 1 }, windowSeconds / Double(combs))
    }

    /// `values` less their centred moving mean over `2 × halfWidth + 1` values (the ends repeated
    /// beyond the edges), negative differences set to 0.
    static func subtractingLocalMean(_ values: [Double], halfWidth: Int) -> [Double] {
        guard let first = values.first, let last = values.last else { return values }
        let padded = [Double](repeating: first, count: halfWidth) + values + [Double](repeating: last, count: halfWidth)
        let width = 2 * halfWidth + 1
        var running = padded[0..<width].reduce(0, +)
        var result = [Double](repeating: 0, count: values.count)
        for index in values.indices {
            if index > 0 { running += padded[index + width - 1] - padded[index - 1] }
            result[index] = max(0, values[index] - running / Double(width))
        }
        return result
    }

    private static func unbiasedAutocorrelation(_ values: [Double]) -> [Double] {
        let count = values.count
        return values.withUnsafeBufferPointer { x in
            (0..<count).map { lag in
                var sum = 0.0
                for i in 0..<(count - lag) { sum += x[i] * x[i + lag] }
                return sum / Double(count - lag)
            }
        }
    }

    private static func normalizedSum(_ values: [Double]) -> [Double] {
        let sum = values.reduce(0, +)
        return sum != 0 ? values.map { $0 / sum } : values
    }

    /// The most likely sequence of period indices, with a Gaussian transition of 8 indices
    /// between periods of 28 to 108 frames (at 86 frames a second).
    private static func viterbiPath(prior: [Double], observations: [[Double]], rate: Double) -> [Int] {
        let count = prior.count
        guard let first = observations.first else { return [] }
        let scale = rate / (44100.0 / 512)
        let gaussian = gaussianPDF(deviation: 8 * scale, step: 1)
        let mean = gaussian.count / 2
        let lowest = Int((28 * scale).rounded(.down)) - 1
        let highest = Int((108 * scale).rounded(.up)) - 1
        var transitions = [[Double]](repeating: [Double](repeating: 0, count: count), count: count)
        for i in lowest...highest where i < count {
            for j in (i - mean)...(i + mean) where j >= lowest && j <= highest && j < count {
                transitions[i][j] = gaussian[j - (i - mean)]
            }
        }
        var delta = normalizedSum(zip(prior, first).map { $0 * $1 })
        var backPointers: [[Int]] = [[Int](repeating: 0, count: count)]
        var next = [Double](repeating: 0, count: count)
        for t in 1..<observations.count {
            var pointers = [Int](repeating: 0, count: count)
            for j in 0..<count {
                var best = 0
                var bestValue = delta[0] * transitions[j][0]
                for i in 1..<count {
                    let value = delta[i] * transitions[j][i]
                    if value > bestValue { (best, bestValue) = (i, value) }
                }
                next[j] = bestValue * observations[t][j]
                pointers[j] = best
            }
            delta = normalizedSum(next)
            backPointers.append(pointers)
        }
        var path = [Int](repeating: 0, count: observations.count)
        path[path.count - 1] = argmax(delta)
        for t in stride(from: observations.count - 2, through: 0, by: -1) {
            path[t] = backPointers[t + 1][path[t + 1]]
        }
        return path
    }

    // MARK: - Beats (Degara)

    /// The frames of `function` that hold a beat.
    private static func beatFrames(
        of function: [Double],
        periods: (periods: [Int], hopSeconds: Double),
        rate: Double
    )
        -> [Int]
    {
        guard let longest = periods.periods.max() else { return [] }
        let resolution = 1 / rate
        let detections = function.map { $0 == 0 ? Double(Float.ulpOfOne) : $0 }
        let latest = Double(longest) / rate + 3 * beatSpread
        var stateCount = 0
        var t = Float(resolution)
        while t <= Float(latest) {
            stateCount += 1
            t += Float(resolution)
        }
        guard stateCount > 1 else { return [] }
        let gaussian = gaussianPDF(deviation: beatSpread, step: resolution, scale: 0.01 / 2)

        // Per period, the log-probabilities (× alpha) of a beat after each state and of moving on.
        var beatAfter: [Int: (toBeat: [Double], onward: [Double])] = [:]
        for period in Set(periods.periods) {
            let shift = gaussian.count / 2 - Int((Double(period) - 1).rounded())
            var toBeat = [Double](repeating: 0, count: stateCount)
            var onward = [Double](repeating: 0, count: stateCount)
            var logSurvival = 0.0
            for state in 0..<stateCount {
                let index = state + shift
                let density = index >= 0 && index < gaussian.count ? gaussian[index] : 0
                var probability = state == 0 ? density : exp(log(density) - logSurvival)
                if probability < 0 { probability = 0 } else if probability > 1 { probability = 1 }
                toBeat[state] = log(probability) * alpha
                let moving = state + 1 < stateCount ? 1 - probability : 0
                onward[state] = log(moving) * alpha
                logSurvival += log(moving)
            }
            beatAfter[period] = (toBeat, onward)
        }

        let frames = detections.count
        let beatScore = detections.map { (1 - alpha) * log(0.99 * $0) }
        let restScore = detections.map { (1 - alpha) * log(1 - 0.99 * $0) }
        let unreachable = Double(Float.greatestFiniteMagnitude)
        var cost = [Double](repeating: unreachable, count: stateCount)
        cost[0] = 0
        var previous = cost
        var cameFrom = [Int32](repeating: 0, count: frames)
        var periodIndex = 0
        for t in 0..<frames {
            let model = beatAfter[periods.periods[periodIndex]]!
            var bestState = 0
            var bestPath = previous[0] - model.toBeat[0]
            for state in 1..<stateCount {
                let value = previous[state] - model.toBeat[state]
                if value < bestPath { (bestState, bestPath) = (state, value) }
            }
            cameFrom[t] = bestPath == unreachable ? -1 : Int32(bestState)
            cost[0] = -beatScore[t] + bestPath
            for state in 1..<stateCount {
                cost[state] = previous[state - 1] - model.onward[state - 1] - restScore[t]
            }
            swap(&cost, &previous)
            if t + 1 < frames {
                let time = Double(t + 1) * resolution
                while periodIndex + 1 < periods.periods.count,
                    Double(periodIndex + 2) * periods.hopSeconds <= time
                {
                    periodIndex += 1
                }
            }
        }
        var state = argmin(previous)
        var beats: [Int] = []
        for t in stride(from: frames - 1, through: 0, by: -1) {
            if state == 0 { beats.append(t) }
            if t == 0 { break }
            state = state == 0 ? Int(cameFrom[t]) : state - 1
            if state < 0 { break }
        }
        return beats.reversed()
    }

    // MARK: - Helpers

    /// A Gaussian density over ±4 deviations in `step`s, times `scale`; values under 10⁻¹² are 0.
    private static func gaussianPDF(deviation: Double, step: Double, scale: Double = 1) -> [Double] {
        let size = 2 * Int((4 * deviation / step).rounded(.up)) + 1
        let mean = size / 2
        let factor = 1 / (deviation * (2 * Double.pi).squareRoot())
        return (0..<size).map { index in
            let x = Double(index - mean) * step
            let value = factor * exp(-x * x / (2 * deviation * deviation)) * scale
            return value < 1e-12 ? 0 : value
        }
    }

    private static func argmax(_ values: [Double]) -> Int {
        var best = 0
        for index in values.indices where values[index] > values[best] { best = index }
        return best
    }

    private static func argmin(_ values: [Double]) -> Int {
        var best = 0
        for index in values.indices where values[index] < values[best] { best = index }
        return best
    }

    /// A small fixed pseudo-random sequence (SplitMix64), so that the same audio always gives the
    /// same beats.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func nextUnit() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
    }
}
