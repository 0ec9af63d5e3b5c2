import Features
import Foundation

extension MoodReport {
    static func outliers(input: Input, statistics: LibraryStatistics, rows: ReportRows) -> Outliers {
        let table = input.table
        var best = BestElements<(id: Int64, distance: Double, vibe: String?)>(count: input.outlierCount) {
            $0.distance != $1.distance ? $0.distance > $1.distance : $0.id < $1.id
        }
        let basis: String
        if let run = input.run {
            let names = Dictionary(uniqueKeysWithValues: run.vibes.map { ($0.cluster, $0.name) })
            for index in run.trackIDs.indices {
                best.offer((run.trackIDs[index], Double(run.distances[index]), names[Int(run.clusters[index])]))
            }
            basis = "distance to vibe centroid"
        } else {
            let space = fallbackSchema(for: table).makeSpace(from: table)
            let norms = space.matrix.values.squaredRowNorms()
            for (index, id) in space.matrix.trackIDs.enumerated() {
                best.offer((id, Double(norms[index]).squareRoot(), nil))
            }
            basis = "distance from library mean"
        }
        let top = best.elements
        let tracks = top.map { candidate -> Outliers.Track in
            var standsOut: [FeatureValue] = []
            if let row = rows.tableIndex.index(of: candidate.id) {
                standsOut = VibeNames.profiledFeatures.compactMap { feature -> FeatureValue? in
                    guard let value = table.value(row: row, feature: feature).map(decimal) else { return nil }
                    return FeatureValue(
                        feature: feature.rawValue,
                        value: value,
                        zScore: statistics.zScore(value, of: feature)
                    )
                }
                .sorted { abs($0.zScore) != abs($1.zScore) ? abs($0.zScore) > abs($1.zScore) : $0.feature < $1.feature }
                .prefix(2).map { $0 }
            }
            return Outliers.Track(
                track: reference(candidate.id, in: input.tracks),
                vibe: candidate.vibe,
                distance: candidate.distance,
                standsOut: standsOut
            )
        }
        return Outliers(basis: basis, tracks: tracks)
    }
}
