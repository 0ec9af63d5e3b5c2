import Features

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Mood {
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

extension VibeProfile {
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
    ///   - tags: Genre tags by track ID (artist genres, dataset genres); when the members of a vibe
    ///     share a distinctive one, the name carries it beside the mood word ("Energetic trap").
    /// - Returns: One profile per cluster, in cluster order, with distinct names.
    /// - Complexity: O(*n* · *f*) for *n* tracks and *f* features, plus the tags.
    public static func profiles(
        table: FeatureTable,
        tableRows: [Int32],
        labels: [Int32],
        clusterCount: Int,
        tags: [Int64: Set<String>] = [:]
    ) -> [VibeProfile] {
        var profiles = unnamedProfiles(table: table, tableRows: tableRows, labels: labels, clusterCount: clusterCount)
        let distinctive = distinctiveTags(
            trackIDs: tableRows.map { table.trackIDs[Int($0)] },
            labels: labels,
            clusterCount: clusterCount,
            tags: tags
        )
        nameDistinctly(&profiles, tags: distinctive)
        return profiles
    }

    /// Profiles and names the clusters of a run, as
    /// ``profiles(table:tableRows:labels:clusterCount:tags:)`` does, from numbered tags.
    ///
    /// - Parameters:
    ///   - table: The raw features of the library.
    ///   - tableRows: For each clustered row, its row in `table` (``FeatureSpace/tableRows``).
    ///   - labels: The cluster of each clustered row.
    ///   - clusterCount: The number of clusters.
    ///   - tagRows: The genre tags of every row of `table`.
    ///   - threadCount: The threads that add up the features and count the tags; the profiles do
    ///     not depend on it.
    /// - Returns: One profile per cluster, in cluster order, with distinct names: the very ones
    ///   the tags as sets of texts give.
    /// - Complexity: O(*n* · (*f* + *t*) + *k* · *T*) for *n* tracks of *f* features and *t*
    ///   tags, *k* clusters and *T* distinct tags.
    public static func profiles(
        table: FeatureTable,
        tableRows: [Int32],
        labels: [Int32],
        clusterCount: Int,
        tagRows: TagRows,
        threadCount: Int = 1
    ) -> [VibeProfile] {
        precondition(tagRows.rowCount == table.rowCount, "The tags need one row per table row.")
        var profiles = unnamedProfiles(
            table: table,
            tableRows: tableRows,
            labels: labels,
            clusterCount: clusterCount,
            threadCount: threadCount
        )
        let distinctive = distinctiveTags(
            tableRows: tableRows,
            labels: labels,
            clusterCount: clusterCount,
            tags: tagRows,
            threadCount: threadCount
        )
        nameDistinctly(&profiles, tags: distinctive)
        return profiles
    }

    /// The profiles of the clusters of a run, with their moods but not yet their names.
    private static func unnamedProfiles(
        table: FeatureTable,
        tableRows: [Int32],
        labels: [Int32],
        clusterCount: Int,
        threadCount: Int = 1
    ) -> [VibeProfile] {
        precondition(tableRows.count == labels.count, "Every clustered row needs a label.")
        let features = profiledFeatures
        let totals = featureTotals(
            table: table,
            tableRows: tableRows,
            labels: labels,
            clusterCount: clusterCount,
            columns: features.map { FeatureTable.columnIndex(of: $0) },
            threadCount: threadCount
        )
        let (librarySums, librarySquares, libraryCounts) = (
            totals.librarySums, totals.librarySquares, totals.libraryCounts
        )
        let (sums, counts, sizes) = (totals.sums, totals.counts, totals.sizes)
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
        return profiles
    }

    /// The sums behind the profiles: per feature, over the library and per cluster, the sum of
    /// the values that are not missing and their count, and the library's sum of squares; and
    /// the size of every cluster.
    struct FeatureTotals {
        /// Per feature, the sum of the library's values.
        var librarySums: [Double]
        /// Per feature, the sum of the squares of the library's values.
        var librarySquares: [Double]
        /// Per feature, how many values the library has.
        var libraryCounts: [Int]
        /// Per cluster and feature (`cluster × features + feature`), the sum of the members' values.
        var sums: [Double]
        /// Per cluster and feature, how many values the members have.
        var counts: [Int]
        /// The members of each cluster.
        var sizes: [Int]
    }

    /// The totals of `columns` over the clustered rows, each added in row order; the columns are
    /// shared out over `threadCount` threads, so the sums do not depend on it.
    static func featureTotals(
        table: FeatureTable,
        tableRows: [Int32],
        labels: [Int32],
        clusterCount: Int,
        columns: [Int],
        threadCount: Int
    ) -> FeatureTotals {
        let width = FeatureTable.columnCount
        let featureCount = columns.count
        var totals = FeatureTotals(
            librarySums: [Double](repeating: 0, count: featureCount),
            librarySquares: [Double](repeating: 0, count: featureCount),
            libraryCounts: [Int](repeating: 0, count: featureCount),
            sums: [Double](repeating: 0, count: clusterCount * featureCount),
            counts: [Int](repeating: 0, count: clusterCount * featureCount),
            sizes: [Int](repeating: 0, count: clusterCount)
        )
        for label in labels { totals.sizes[Int(label)] += 1 }
        // The sums below read through pointers: every row must be in the table.
        precondition(tableRows.allSatisfy { $0 >= 0 && Int($0) < table.rowCount }, "Table rows out of range.")
        precondition(columns.allSatisfy { (0..<width).contains($0) }, "Columns out of range.")
        // Each group of features: its totals, with its features numbered from 0.
        let groups = KMeans.blocks(of: featureCount, parts: threadCount)
        let parts = table.values.withUnsafeBufferPointer { values in
            tableRows.withUnsafeBufferPointer { tableRows in
                labels.withUnsafeBufferPointer { labels in
                    Kernels.parallelChunks(groups, threadCount: threadCount) { group in
                        let groupColumns = Array(columns[group])
                        let n = groupColumns.count
                        var librarySums = [Double](repeating: 0, count: n)
                        var librarySquares = [Double](repeating: 0, count: n)
                        var libraryCounts = [Int](repeating: 0, count: n)
                        var sums = [Double](repeating: 0, count: clusterCount * n)
                        var counts = [Int](repeating: 0, count: clusterCount * n)
                        for (row, label) in zip(tableRows, labels) {
                            let c = Int(label)
                            for (f, column) in groupColumns.enumerated() {
                                let value = Double(values[Int(row) * width + column])
                                guard !value.isNaN else { continue }
                                librarySums[f] += value
                                librarySquares[f] += value * value
                                libraryCounts[f] += 1
                                sums[c * n + f] += value
                                counts[c * n + f] += 1
                            }
                        }
                        return FeatureTotals(
                            librarySums: librarySums,
                            librarySquares: librarySquares,
                            libraryCounts: libraryCounts,
                            sums: sums,
                            counts: counts,
                            sizes: []
                        )
                    }
                }
            }
        }
        for (group, part) in zip(groups, parts) {
            let n = group.count
            for (f, feature) in group.enumerated() {
                totals.librarySums[feature] = part.librarySums[f]
                totals.librarySquares[feature] = part.librarySquares[f]
                totals.libraryCounts[feature] = part.libraryCounts[f]
                for c in 0..<clusterCount {
                    totals.sums[c * featureCount + feature] = part.sums[c * n + f]
                    totals.counts[c * featureCount + feature] = part.counts[c * n + f]
                }
            }
        }
        return totals
    }

    /// The least share of a vibe's members a tag needs to name it.
    static let tagShare = 0.2
    /// How many times more common than among all tagged tracks a tag must be in a vibe to name it.
    static let tagLift = 1.25

    /// The tags that set each cluster apart, most distinctive first: a tag held by at least
    /// ``tagShare`` of the cluster's tagged members and ``tagLift`` times as common there as among
    /// every tagged track, scored by share × ln(lift) (ties by text).
    ///
    /// - Returns: Per cluster, in cluster order, its most distinctive tag and a second one when it
    /// scores at least half as much; none without tags.
    static func distinctiveTags(
        trackIDs: [Int64],
        labels: [Int32],
        clusterCount: Int,
        tags: [Int64: Set<String>]
    ) -> [[String]] {
        var result = [[String]](repeating: [], count: clusterCount)
        guard !tags.isEmpty else { return result }
        var overall: [String: Int] = [:]
        var perCluster = [[String: Int]](repeating: [:], count: clusterCount)
        var tagged = [Int](repeating: 0, count: clusterCount)
        var taggedTotal = 0
        for (id, label) in zip(trackIDs, labels) {
            guard let set = tags[id], !set.isEmpty else { continue }
            taggedTotal += 1
            tagged[Int(label)] += 1
            for tag in set {
                overall[tag, default: 0] += 1
                perCluster[Int(label)][tag, default: 0] += 1
            }
        }
        guard taggedTotal > 0 else { return result }
        for cluster in 0..<clusterCount where tagged[cluster] > 0 {
            result[cluster] = mostDistinctive(
                perCluster[cluster].lazy.map { (tag: $0.key, count: $0.value, overall: overall[$0.key]!) },
                tagged: tagged[cluster],
                taggedTotal: taggedTotal
            )
        }
        return result
    }

    /// A cluster's most distinctive tag and a second one scoring at least half as much
    /// (``distinctiveTags(trackIDs:labels:clusterCount:tags:)``), from the count of each of its
    /// tags among its `tagged` members and among all `taggedTotal` tagged tracks; none when no tag
    /// qualifies.
    static func mostDistinctive(
        _ counts: some Sequence<(tag: String, count: Int, overall: Int)>,
        tagged: Int,
        taggedTotal: Int
    ) -> [String] {
        guard tagged > 0, taggedTotal > 0 else { return [] }
        let scored = counts.compactMap { tag, count, overall -> (tag: String, score: Double)? in
            let share = Double(count) / Double(tagged)
            let lift = share / (Double(overall) / Double(taggedTotal))
            guard share >= tagShare, lift >= tagLift else { return nil }
            return (tag, share * log(lift))
        }
        let sorted = scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.tag < $1.tag }
        guard let best = sorted.first else { return [] }
        return sorted.prefix(2).filter { $0.score >= 0.5 * best.score }.map(\.tag)
    }

    /// Sound words that contradict a mood word: a high-energy word never goes with a slow, quiet
    /// or drifting sound, nor a low-energy one with a fast or loud one ("Upbeat slow").
    static func contradicts(adjective: String, word: String) -> Bool {
        switch adjective {
        case "Energetic", "Upbeat", "Euphoric", "Intense", "Angry": ["slow", "quiet", "drifting"].contains(word)
        case "Mellow", "Calm", "Serene", "Wistful", "Melancholic": ["fast", "loud"].contains(word)
        default: false
        }
    }

    /// The names a profile could take, simplest first: with `tags`, the mood adjective with the
    /// two most distinctive tags and then with each; then the adjective with the strongest sound
    /// descriptor, with two descriptors, and with the others.
    ///
    /// A descriptor must point the same way against the library and against the fixed reference
    /// (a solo-piano library's most danceable vibe is not "dance"), and never contradicts the mood
    /// word (``contradicts(adjective:word:)``).
    static func candidateNames(for profile: VibeProfile, tags: [String] = []) -> [String] {
        let axes = profile.moodAxes
        let adjective = Mood.adjective(valence: axes.valence, energy: axes.energy, softness: axes.softness)
        let words = descriptors.compactMap { descriptor -> (word: String, strength: Double)? in
            guard let z = profile.zScores[descriptor.feature.rawValue] else { return nil }
            if let reference = profile.referenceZScores[descriptor.feature.rawValue], (reference >= 0) != (z >= 0) {
                return nil
            }
            let word = z >= 0 ? descriptor.above : descriptor.below
            let strength = abs(z) * descriptor.salience
            guard let word, strength >= 0.25, !contradicts(adjective: adjective, word: word) else { return nil }
            return (word, strength)
        }
        .sorted { $0.strength != $1.strength ? $0.strength > $1.strength : $0.word < $1.word }
        .map(\.word)

        var names: [String] = []
        if tags.count >= 2 { names.append("\(adjective) \(tags[0]) & \(tags[1])") }
        for tag in tags { names.append("\(adjective) \(tag)") }
        if let first = words.first {
            names.append("\(adjective) \(first)")
            for second in words.dropFirst() { names.append("\(adjective) \(second) \(first)") }
            for other in words.dropFirst() { names.append("\(adjective) \(other)") }
        }
        names.append(adjective)
        return names
    }

    /// Gives every profile a name no other profile of the run has, the largest clusters first.
    static func nameDistinctly(_ profiles: inout [VibeProfile], tags: [[String]] = []) {
        var used: Set<String> = []
        let order = profiles.indices.sorted {
            profiles[$0].size != profiles[$1].size ? profiles[$0].size > profiles[$1].size : $0 < $1
        }
        for index in order {
            let candidates = candidateNames(
                for: profiles[index],
                tags: tags.indices.contains(profiles[index].cluster) ? tags[profiles[index].cluster] : []
            )
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
