import Features

/// The mood of a vibe: the quadrant of Russell's circumplex its centroid falls in, with valence as
/// pleasantness and energy as arousal, both measured against a fixed reference population
/// (``VibeNames/referencePopulation``), so that calm music is calm in any library.
public enum Mood: String, CaseIterable, Hashable, Sendable, Codable {
    /// Pleasant and aroused: happy, energetic.
    case happy = "happy/energetic"
    /// Pleasant and calm: calm, content.
    case calm = "calm/content"
    /// Unpleasant and calm: sad, melancholic.
    case sad = "sad/melancholic"
    /// Unpleasant and aroused: tense, angry.
    case tense = "tense/angry"

    /// The mood of a centroid with valence and energy z-scores `valence` and `energy`.
    public init(valence: Double, energy: Double) {
        switch (valence >= 0, energy >= 0) {
        case (true, true): self = .happy
        case (true, false): self = .calm
        case (false, false): self = .sad
        case (false, true): self = .tense
        }
    }

    /// The adjective that opens a vibe's name.
    ///
    /// A centroid near average on one axis (|z| < 0.25) is named by the other axis alone:
    /// "Energetic" or "Mellow" for arousal, "Bright" or "Dark" for valence. The strong words
    /// ("Euphoric", "Serene", "Melancholic", "Angry") need both axes clearly off average. Soft,
    /// very quiet music is calm whatever its valence (``init(valence:energy:softness:)``).
    static func adjective(valence: Double, energy: Double, softness: Double = 0) -> String {
        let mood = Mood(valence: valence, energy: energy, softness: softness)
        let isSoftCalm = mood == .calm && valence < 0
        let isNeutralValence = abs(valence) < 0.25
        let isNeutralEnergy = abs(energy) < 0.25
        switch (isNeutralValence, isNeutralEnergy) {
        case (true, true): return "Balanced"
        case (true, false): return energy >= 0 ? "Energetic" : "Mellow"
        case (false, true): return valence >= 0 ? "Bright" : "Dark"
        case (false, false): break
        }
        let isStrong =
            isSoftCalm ? energy <= -1.5 : min(abs(valence), abs(energy)) > 0.5 && max(abs(valence), abs(energy)) > 1
        switch mood {
        case .happy: return isStrong ? "Euphoric" : "Upbeat"
        case .calm: return isStrong ? "Serene" : "Calm"
        case .sad: return isStrong ? "Melancholic" : "Wistful"
        case .tense: return isStrong ? "Angry" : "Intense"
        }
    }
}

/// What one vibe sounds like, in words and in numbers.
public struct VibeProfile: Hashable, Sendable, Codable {
    /// The cluster index in the model.
    public var cluster: Int
    /// A human name, distinct within the run, such as "Calm acoustic" or "Euphoric dance".
    public var name: String
    /// The valence–energy quadrant.
    public var mood: Mood
    /// The number of tracks.
    public var size: Int
    /// The share of the clustered tracks, from 0 to 1.
    public var share: Double
    /// The mean of every audio feature over the members, in original units, keyed by wire name.
    public var means: [String: Double]
    /// How far each mean lies from the library mean, in library standard deviations.
    public var zScores: [String: Double]
    /// How far each mean lies from the mean of ``VibeNames/referencePopulation``, in its
    /// standard deviations.
    public var referenceZScores: [String: Double] = [:]
    /// The features that set the vibe apart, strongest first (|z| ≥ 0.25), such as `acousticness`.
    public var distinguishingFeatures: [String]

    enum CodingKeys: String, CodingKey {
        case cluster, name, mood, size, share, means
        case zScores = "z_scores"
        case referenceZScores = "reference_z_scores"
        case distinguishingFeatures = "distinguishing_features"
    }

    /// The valence and energy z-scores the mood and the opening word are read from
    /// (``VibeNames/moodZScores(library:reference:)``), and the softness: the larger of the
    /// acousticness and instrumentalness z-scores, 0 without either.
    var moodAxes: (valence: Double, energy: Double, softness: Double) {
        let z = VibeNames.moodZScores(library: zScores, reference: referenceZScores)
        let soft = [AudioFeature.acousticness, .instrumentalness].compactMap { z[$0.rawValue] }
        return (z[AudioFeature.valence.rawValue] ?? 0, z[AudioFeature.energy.rawValue] ?? 0, soft.max() ?? 0)
    }
}

/// Names and profiles for the clusters of a run.
public enum VibeNames {
    /// A word for a feature lying far above (positive) or below (negative) the library average, and
    /// how much such a deviation says about a vibe.
    static let descriptors: [(feature: AudioFeature, above: String?, below: String?, salience: Double)] = [
        (.acousticness, "acoustic", "electric", 1),
        (.instrumentalness, "instrumental", nil, 1),
        (.danceability, "dance", "drifting", 1),
        (.speechiness, "spoken", nil, 1),
        (.liveness, "live", nil, 0.8),
        (.tempo, "fast", "slow", 0.9),
        (.loudness, "loud", "quiet", 0.8),
        (.mode, "major-key", "minor-key", 0.4),
    ]

    /// The features whose z-scores are reported; key is circular and left out.
    static let profiledFeatures: [AudioFeature] = AudioFeature.allCases.filter { $0 != .key }

    /// Profiles and names the clusters of a run.
    ///
    /// - Parameters:
    ///   - table: The raw features of the library.
    ///   - tableRows: For each clustered row, its row in `table` (``FeatureSpace/tableRows``).
    ///   - labels: The cluster of each clustered row.
    ///   - clusterCount: The number of clusters.
    /// - Returns: One profile per cluster, in cluster order, with distinct names.
    /// - Complexity: O(*n* · *f*) for *n* tracks and *f* features.
    public static func profiles(
        table: FeatureTable,
        tableRows: [Int32],
        labels: [Int32],
        clusterCount: Int
    ) -> [VibeProfile] {
        precondition(tableRows.count == labels.count, "Every clustered row needs a label.")
        let width = FeatureTable.columnCount
        let features = profiledFeatures
        let columns = features.map { FeatureTable.columnIndex(of: $0) }
        var librarySums = [Double](repeating: 0, count: features.count)
        var librarySquares = [Double](repeating: 0, count: features.count)
        var libraryCounts = [Int](repeating: 0, count: features.count)
        var sums = [Double](repeating: 0, count: clusterCount * features.count)
        var counts = [Int](repeating: 0, count: clusterCount * features.count)
        var sizes = [Int](repeating: 0, count: clusterCount)
        for (row, label) in zip(tableRows, labels) {
            let c = Int(label)
            sizes[c] += 1
            for (f, column) in columns.enumerated() {
                let value = Double(table.values[Int(row) * width + column])
                guard !value.isNaN else { continue }
                librarySums[f] += value
                librarySquares[f] += value * value
                libraryCounts[f] += 1
                sums[c * features.count + f] += value
                counts[c * features.count + f] += 1
            }
        }
        let libraryMeans = (0..<features.count).map {
            libraryCounts[$0] > 0 ? librarySums[$0] / Double(libraryCounts[$0]) : 0
        }
        let libraryDeviations = (0..<features.count).map { f -> Double in
            guard libraryCounts[f] > 0 else { return 0 }
            let mean = libraryMeans[f]
            return Swift.max(0, librarySquares[f] / Double(libraryCounts[f]) - mean * mean).squareRoot()
        }

        var profiles: [VibeProfile] = []
        for c in 0..<clusterCount {
            var means: [String: Double] = [:]
            var zScores: [String: Double] = [:]
            var referenceZScores: [String: Double] = [:]
            for (f, feature) in features.enumerated() where counts[c * features.count + f] > 0 {
                let mean = sums[c * features.count + f] / Double(counts[c * features.count + f])
                means[feature.rawValue] = mean
                zScores[feature.rawValue] =
                    libraryDeviations[f] > 0 ? (mean - libraryMeans[f]) / libraryDeviations[f] : 0
                referenceZScores[feature.rawValue] = referenceZScore(of: mean, for: feature)
            }
            let distinguishing = zScores.filter { abs($0.value) >= 0.25 }
                .sorted { abs($0.value) != abs($1.value) ? abs($0.value) > abs($1.value) : $0.key < $1.key }
                .map(\.key)
            var profile = VibeProfile(
                cluster: c,
                name: "",
                mood: .calm,
                size: sizes[c],
                share: labels.isEmpty ? 0 : Double(sizes[c]) / Double(labels.count),
                means: means,
                zScores: zScores,
                referenceZScores: referenceZScores,
                distinguishingFeatures: distinguishing
            )
            let axes = profile.moodAxes
            profile.mood = Mood(valence: axes.valence, energy: axes.energy, softness: axes.softness)
            profiles.append(profile)
        }
        nameDistinctly(&profiles)
        return profiles
    }

    /// The names a profile could take, simplest first: the mood adjective with the strongest
    /// descriptor, then with two descriptors, then with the others.
    static func candidateNames(for profile: VibeProfile) -> [String] {
        let axes = profile.moodAxes
        let adjective = Mood.adjective(valence: axes.valence, energy: axes.energy, softness: axes.softness)
        let words = descriptors.compactMap { descriptor -> (word: String, strength: Double)? in
            guard let z = profile.zScores[descriptor.feature.rawValue] else { return nil }
            let word = z >= 0 ? descriptor.above : descriptor.below
            let strength = abs(z) * descriptor.salience
            guard let word, strength >= 0.25 else { return nil }
            return (word, strength)
        }
        .sorted { $0.strength != $1.strength ? $0.strength > $1.strength : $0.word < $1.word }
        .map(\.word)

        var names: [String] = []
        if let first = words.first {
            names.append("\(adjective) \(first)")
            for second in words.dropFirst() { names.append("\(adjective) \(second) \(first)") }
            for other in words.dropFirst() { names.append("\(adjective) \(other)") }
        }
        names.append(adjective)
        return names
    }

    /// Gives every profile a name no other profile of the run has, the largest clusters first.
    static func nameDistinctly(_ profiles: inout [VibeProfile]) {
        var used: Set<String> = []
        let order = profiles.indices.sorted {
            profiles[$0].size != profiles[$1].size ? profiles[$0].size > profiles[$1].size : $0 < $1
        }
        for index in order {
            let candidates = candidateNames(for: profiles[index])
            var name = candidates.first { !used.contains($0) }
            var suffix = 2
            while name == nil {
                let numbered = "\(candidates[0]) \(suffix)"
                if !used.contains(numbered) { name = numbered }
                suffix += 1
            }
            used.insert(name!)
            profiles[index].name = name!
        }
    }
}

extension KMeans {
    /// The rows nearest to each centroid, nearest first: a cluster's most representative tracks.
    ///
    /// - Parameter count: The most rows per cluster.
    /// - Returns: One array of row indices per cluster.
    public func representativeRows(count: Int) -> [[Int]] {
        var rows = [[Int]](repeating: [], count: clusterCount)
        for (row, label) in labels.enumerated() { rows[Int(label)].append(row) }
        return rows.map { members in
            members.max(count: count) { a, b in
                squaredDistances[a] != squaredDistances[b] ? squaredDistances[a] > squaredDistances[b] : a < b
            }
        }
    }
}
