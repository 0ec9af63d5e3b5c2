import Features

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Seed points and query lanes

/// A seed as a point: where it lies in the scaled space and, for explanations, in raw units.
struct SeedPoint: Sendable {
    var label: String
    /// The point in the scaled space.
    var scaled: [Float]
    /// The raw value of each audio feature (`AudioFeature.allCases` order), `nil` where unknown.
    var raw: [Double?]
    /// The mean artist context of the seed's tracks (``ArtistContext``), or `nil` for a seed that
    /// is not made of tracks (a mood).
    var artistContext: [Float]? = nil
    /// The rows of the seed's tracks, or `nil` for a seed that is not made of tracks.
    var rows: [Int]? = nil
}

/// One query vector with its label and its reference point for explanations.
struct QueryLane: Sendable {
    var label: String
    var query: [Float]
    var reference: [Double?]
    /// Whether the query has a direction (seeds or target coordinates); without one, the score is the target fit.
    var hasDirection: Bool
    /// The artist half of the query when every seed is made of tracks: the lane then ranks by
    /// the hybrid similarity of ``ArtistContext``; `nil` ranks by the audio features alone.
    var artistContext: [Float]? = nil
    /// The rows of the seed tracks when every seed is made of tracks, for the sparse blocks.
    var seedRows: [Int]? = nil
}

extension Recommender {
    /// The number of tracks nearest a mood's (valence, energy) point whose centroid is the mood seed.
    static let moodNeighborhood = 50

    func point(for seed: RecommendationSeed) throws -> SeedPoint {
        switch seed {
        case .track(let id):
            guard let row = row(of: id) else { throw RecommendationError.seedWithoutFeatures(trackID: id) }
            var point = centroid(of: [row], label: "track \(id)")
            point.artistContext = meanArtistContext(of: [row])
            point.rows = [row]
            return point
        case .tracks(let ids, let label):
            let rows = ids.compactMap(row(of:))
            guard !rows.isEmpty else { throw RecommendationError.emptySeed(label: label) }
            var point = centroid(of: rows, label: label)
            point.artistContext = meanArtistContext(of: rows)
            point.rows = rows
            return point
        case .mood(let mood):
            let rows = rowsNearest(mood: mood, count: Recommender.moodNeighborhood)
            guard !rows.isEmpty else { throw RecommendationError.emptySeed(label: "mood \(mood.rawValue)") }
            return centroid(of: rows, label: "mood \(mood.rawValue)")
        }
    }

    /// The mean artist context of `rows` (``ArtistContext/context(row:features:)``).
    func meanArtistContext(of rows: [Int]) -> [Float] {
        var mean = [Float](repeating: 0, count: features.columnCount)
        for row in rows {
            for (column, value) in artistContext.context(row: row, features: features).enumerated() {
                mean[column] += value / Float(rows.count)
            }
        }
        return mean
    }

    /// The rows whose (valence, energy) lie nearest the mood's point, ties by track ID.
    func rowsNearest(mood: MoodWord, count: Int) -> [Int] {
        let (valence, energy) = mood.point
        return rowsNearest(valence: valence, energy: energy, count: count)
    }

    /// The rows whose (valence, energy) lie nearest a point of the plane, ties by track ID.
    func rowsNearest(
        valence: Double,
        energy: Double,
        count: Int,
        where isIncluded: (Int) -> Bool = { _ in true }
    )
        -> [Int]
    {
        var selection = TopKCandidates(capacity: count, distinctTrackIDs: rowsByTrackID.ascends)
        for row in 0..<trackCount where isIncluded(row) {
            guard let v = table.value(row: row, feature: .valence), let e = table.value(row: row, feature: .energy)
            else { continue }
            let distance = (Double(v) - valence) * (Double(v) - valence) + (Double(e) - energy) * (Double(e) - energy)
            selection.insert(Candidate(row: row, trackID: table.trackIDs[row], similarity: -distance, score: -distance))
        }
        return selection.candidates.map(\.row)
    }

    /// The mean of `rows` in the scaled space and, ignoring missing values, in raw units.
    func centroid(of rows: [Int], label: String) -> SeedPoint {
        let d = features.columnCount
        var scaled = [Float](repeating: 0, count: d)
        for row in rows {
            for column in 0..<d { scaled[column] += features.values.elements[row * d + column] }
        }
        scaled = scaled.map { $0 / Float(rows.count) }
        var raw: [Double?] = []
        for feature in AudioFeature.allCases {
            let values = rows.compactMap { table.value(row: $0, feature: feature) }.map(Double.init)
            if values.isEmpty {
                raw.append(nil)
            } else if feature == .key {
                raw.append(Recommender.circularMeanKey(values))
            } else {
                raw.append(values.reduce(0, +) / Double(values.count))
            }
        }
        return SeedPoint(label: label, scaled: scaled, raw: raw)
    }

    /// The key nearest the circular mean of `keys` (pitch classes 0…11).
    static func circularMeanKey(_ keys: [Double]) -> Double {
        guard keys.count > 1 else { return keys.first ?? 0 }
        var best = 0
        var bestCost = Double.infinity
        for candidate in 0..<12 {
            let cost = keys.reduce(0) { $0 + Recommender.keyDistance(Double(candidate), $1) }
            if cost < bestCost {
                bestCost = cost
                best = candidate
            }
        }
        return Double(best)
    }

    /// The distance in semitones around the circle of pitch classes, 0…6.
    static func keyDistance(_ a: Double, _ b: Double) -> Double {
        let difference = abs(a - b).truncatingRemainder(dividingBy: 12)
        return Swift.min(difference, 12 - difference)
    }

    func makeLanes(positive: [SeedPoint], negative: [SeedPoint], query: RecommendationQuery) -> [QueryLane] {
        let d = features.columnCount
        var push = [Float](repeating: 0, count: d)
        if !negative.isEmpty {
            for point in negative {
                for column in 0..<d { push[column] += 0.5 * point.scaled[column] / Float(negative.count) }
            }
        }
        func lane(from points: [SeedPoint], label: String) -> QueryLane {
            var vector = [Float](repeating: 0, count: d)
            var reference = [Double?](repeating: nil, count: AudioFeature.allCases.count)
            for point in points {
                for column in 0..<d { vector[column] += point.scaled[column] / Float(points.count) }
            }
            for feature in AudioFeature.allCases.indices {
                let values = points.compactMap { $0.raw[feature] }
                if !values.isEmpty {
                    reference[feature] =
                        AudioFeature.allCases[feature] == .key
                        ? Recommender.circularMeanKey(values) : values.reduce(0, +) / Double(values.count)
                }
            }
            for column in 0..<d { vector[column] -= push[column] }
            for (attribute, value) in query.targets {
                guard let feature = attribute.audioFeature else { continue }
                reference[FeatureTable.columnIndex(of: feature)] = value
                for (column, scale) in scaling.columns.enumerated() where scale.feature == feature {
                    vector[column] = Recommender.scaledCoordinate(value, column: scale)
                }
            }
            var contexts = points.compactMap(\.artistContext)
            if contexts.count != points.count { contexts = [] }
            let context: [Float]? =
                contexts.isEmpty
                ? nil
                : (0..<d).map { column in contexts.reduce(0) { $0 + $1[column] } / Float(contexts.count) }
            let rows = points.compactMap(\.rows)
            return QueryLane(
                label: label,
                query: vector,
                reference: reference,
                hasDirection: !points.isEmpty,
                artistContext: context,
                seedRows: context == nil || rows.count != points.count ? nil : rows.flatMap { $0 }
            )
        }
        if positive.isEmpty { return [lane(from: [], label: "targets")] }
        if query.combination == .interleave && positive.count > 1 {
            return positive.map { lane(from: [$0], label: $0.label) }
        }
        let label = positive.count == 1 ? positive[0].label : "mean of " + positive.map(\.label).joined(separator: ", ")
        return [lane(from: positive, label: label)]
    }

    /// A raw value of `column`'s feature, encoded and scaled like the matrix column.
    static func scaledCoordinate(_ value: Double, column: FeatureScaling.Column) -> Float {
        Float(column.scaled(value: value))
    }

    // MARK: - Bounds and targets

    /// The value of `attribute` for `row`, or `nil` when unknown.
    func value(of attribute: TunableAttribute, row: Int) -> Double? {
        switch attribute {
        case .durationMS: attributes.duration(row: row).map(Double.init)
        case .popularity: attributes.popularity(row: row).map(Double.init)
        default: table.value(row: row, feature: attribute.audioFeature!).map(Double.init)
        }
    }

    /// Whether `row` is within every one of `bounds` (the constraints with a minimum or a maximum).
    func passesBounds(
        row: Int,
        bounds: [(attribute: TunableAttribute, constraint: AttributeConstraint)],
        tempoOctave: Bool
    ) -> Bool {
        for (attribute, constraint) in bounds {
            guard let value = value(of: attribute, row: row) else { return false }
            // Half/double time widens a tempo window; a one-sided bound would then admit everything.
            let isWindow = constraint.minimum != nil && constraint.maximum != nil
            let candidates =
                attribute == .tempo && tempoOctave && isWindow ? [value, value * 2, value / 2] : [value]
            let fits = candidates.contains { candidate in
                (constraint.minimum.map { candidate >= $0 } ?? true)
                    && (constraint.maximum.map { candidate <= $0 } ?? true)
            }
            if !fits { return false }
        }
        return true
    }

    /// How close `row` is to every target, from 0 (all far or unknown) to 1 (all on target).
    func targetFit(row: Int, targets: [(attribute: TunableAttribute, value: Double)], tempoOctave: Bool) -> Double {
        guard !targets.isEmpty else { return 1 }
        var penalty = 0.0
        for (attribute, target) in targets {
            guard let value = value(of: attribute, row: row) else {
                penalty += 1
                continue
            }
            let distance: Double
            switch attribute {
            case .key: distance = Recommender.keyDistance(value, target)
            case .tempo where tempoOctave: distance = [value, value * 2, value / 2].map { abs($0 - target) }.min()!
            default: distance = abs(value - target)
            }
            penalty += Swift.min(1, distance / attribute.targetSpan)
        }
        return 1 - penalty / Double(targets.count)
    }

    // MARK: - Explanations

    /// The three features of the schema where `row` differs most from `reference`, in library
    /// standard deviations: the features that moved the similarity most.
    func differences(row: Int, reference: [Double?], count: Int = 3) -> [FeatureDifference] {
        var result: [FeatureDifference] = []
        let features = Set(scaling.schema.features)
        for (index, feature) in AudioFeature.allCases.enumerated() where features.contains(feature) {
            guard let reference = reference[index], let stored = table.value(row: row, feature: feature) else {
                continue
            }
            let value = Double(stored)
            let signed = feature == .key ? Recommender.keyDistance(value, reference) : value - reference
            result.append(
                FeatureDifference(
                    feature: feature,
                    value: value,
                    reference: reference,
                    deviations: signed / rawDeviations[index]
                )
            )
        }
        result.sort {
            abs($0.deviations) > abs($1.deviations)
                || (abs($0.deviations) == abs($1.deviations) && $0.feature.rawValue < $1.feature.rawValue)
        }
        return Array(result.prefix(count))
    }
}
