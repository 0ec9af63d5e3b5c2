import Features
import Foundation

extension MoodReport {
    /// The features the track list carries: the continuous ones a scatter can use as axes.
    static let trackListFeatures: [AudioFeature] = [
        .danceability, .energy, .valence, .acousticness, .instrumentalness, .speechiness, .liveness, .loudness,
        .tempo,
    ]

    /// Lists the tracks of the feature table, grouped by vibe (or mood quadrant without a run):
    /// every one up to ``Input/trackListLimit`` tracks, else the scatter's even sample.
    ///
    /// - Complexity: O(*n*) for *n* tracks with features, O(*n* log *n*) when their IDs do not
    ///   ascend.
    static func trackList(input: Input, rows tableRows: ReportRows) -> TrackList {
        let table = input.table
        let ids = table.trackIDs
        let rows =
            tableRows.tableIndex.ascends
            ? Array(0..<table.rowCount) : (0..<table.rowCount).sorted { ids[$0] < ids[$1] }
        var groupNames: [String]
        var groupOfRow: [Int] = []
        groupOfRow.reserveCapacity(rows.count)
        if let run = input.run {
            let vibeOrder = run.vibes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }
            let groupOfCluster = Dictionary(uniqueKeysWithValues: vibeOrder.enumerated().map { ($1.cluster, $0) })
            groupNames = vibeOrder.map(\.name)
            let outside = groupNames.count
            for row in rows {
                let cluster = tableRows.clusterOfRow[row]
                groupOfRow.append(cluster >= 0 ? groupOfCluster[Int(cluster)] ?? outside : outside)
            }
            if groupOfRow.contains(outside) { groupNames.append("not in run \(run.id)") }
        } else {
            groupNames = Mood.allCases.map(\.rawValue)
            for row in rows {
                // As on the library map: a missing valence or energy counts as the middle, 0.5.
                let valence = decimal(table.value(row: row, feature: .valence) ?? 0.5)
                let energy = decimal(table.value(row: row, feature: .energy) ?? 0.5)
                groupOfRow.append(Mood.allCases.firstIndex(of: quadrant(valence: valence, energy: energy))!)
            }
        }
        // An even sample: the tracks at ⌊i · n / limit⌋ for i below the limit, distinct as n > limit.
        let limit = Swift.max(1, input.trackListPointLimit)
        var isDrawn = [Bool](repeating: rows.count <= limit, count: rows.count)
        if rows.count > limit {
            for index in 0..<limit { isDrawn[index * rows.count / limit] = true }
        }
        var sizes = [Int](repeating: 0, count: groupNames.count)
        for group in groupOfRow { sizes[group] += 1 }
        let listsEvery = rows.count <= Swift.max(input.trackListLimit, limit)
        let entries = rows.indices.compactMap { index -> TrackList.Entry? in
            guard listsEvery || isDrawn[index] else { return nil }
            let row = rows[index]
            let id = table.trackIDs[row]
            let track = input.tracks[id]
            let distance = tableRows.distanceOfRow[row]
            return TrackList.Entry(
                id: id,
                name: track?.name ?? "track \(id)",
                artists: track?.artists ?? [],
                spotifyID: track?.spotifyID,
                filePath: track?.filePath,
                durationMS: track?.durationMS.flatMap { Track.validDurationMS.contains($0) ? $0 : nil },
                group: groupOfRow[index],
                distance: distance.isNaN ? nil : rounded(Double(distance), digits: 3) + 0,
                values: trackListFeatures.map { feature in
                    table.value(row: row, feature: feature).map { rounded(decimal($0), digits: 3) + 0 }
                },
                isDrawn: isDrawn[index]
            )
        }
        return TrackList(
            features: trackListFeatures.map(\.rawValue),
            units: trackListFeatures.map(\.unit),
            groups: zip(groupNames, sizes).map { TrackList.Group(name: $0, tracks: $1) },
            pointLimit: limit,
            drawnCount: Swift.min(rows.count, limit),
            trackCount: rows.count,
            entries: entries
        )
    }
}
