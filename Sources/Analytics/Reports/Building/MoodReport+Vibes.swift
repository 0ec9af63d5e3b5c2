import Features
import Foundation

extension MoodReport {
    static func reference(_ id: Int64, in tracks: [Int64: TrackCredit]) -> TrackReference {
        let track = tracks[id]
        return TrackReference(id: id, name: track?.name ?? "track \(id)", artists: track?.artists ?? [])
    }

    static func vibesSection(of run: ReportRun, input: Input, rows: ReportRows) -> VibesSection {
        // The nearest members of every cluster, in one pass over the run.
        var nearest: [Int32: BestElements<(id: Int64, distance: Float)>] = [:]
        for vibe in run.vibes {
            nearest[Int32(vibe.cluster)] = BestElements(count: input.representativeCount) {
                $0.distance != $1.distance ? $0.distance < $1.distance : $0.id < $1.id
            }
        }
        for index in run.trackIDs.indices {
            nearest[run.clusters[index]]?.offer((run.trackIDs[index], run.distances[index]))
        }
        let (artistCounts, genreCounts) = creditCounts(of: run, input: input, rows: rows)
        let listened = vibeListening(input: input, run: run)
        let totalListened = listened.values.reduce(0, +)
        let vibes = run.vibes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }.map {
            profile in
            let topArtists = (artistCounts[profile.cluster] ?? [:])
                .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .prefix(input.topArtistCount).map { VibesSection.ArtistCount(artist: $0.key, tracks: $0.value) }
            let topGenres = (genreCounts[profile.cluster] ?? [:])
                .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .prefix(input.topArtistCount).map { VibesSection.GenreCount(genre: $0.key, tracks: $0.value) }
            let profileValues = VibeNames.profiledFeatures.compactMap { feature -> FeatureValue? in
                guard let mean = profile.means[feature.rawValue] else { return nil }
                return FeatureValue(
                    feature: feature.rawValue,
                    value: mean,
                    zScore: profile.zScores[feature.rawValue] ?? 0
                )
            }
            return VibesSection.Vibe(
                cluster: profile.cluster,
                name: profile.name,
                mood: profile.mood,
                size: profile.size,
                share: profile.share,
                listenedShare: totalListened > 0 ? Double(listened[profile.cluster] ?? 0) / Double(totalListened) : nil,
                profile: profileValues,
                representatives: (nearest[Int32(profile.cluster)]?.elements ?? []).map {
                    reference($0.id, in: input.tracks)
                },
                topArtists: Array(topArtists),
                topGenres: topGenres.isEmpty ? nil : Array(topGenres)
            )
        }
        return VibesSection(
            runID: run.id,
            features: run.scaling.schema.features.map(\.rawValue),
            scaling: run.scaling.schema.scaling.rawValue,
            tracks: run.trackCount,
            vibes: vibes,
            playlist: run.playlist
        )
    }

    /// Per cluster, how many of its tracks each main artist has, and how many carry each genre.
    ///
    /// With ``Input/credits`` the counts run over integer codes and only the names of counted
    /// codes are looked up; otherwise they come from ``Input/tracks``.
    static func creditCounts(
        of run: ReportRun,
        input: Input,
        rows: ReportRows
    ) -> (artists: [Int: [String: Int]], genres: [Int: [String: Int]]) {
        var artists: [Int: [String: Int]] = [:]
        var genres: [Int: [String: Int]] = [:]
        if let credits = input.credits, credits.mainArtists.count == input.table.rowCount {
            // The rows of each cluster together (a counting sort), then one cluster at a time
            // counted in arrays with a slot per code: memory for the codes, not codes × clusters.
            let clusterCount = (run.vibes.map(\.cluster).max() ?? -1) + 1
            var starts = [Int](repeating: 0, count: clusterCount + 1)
            for cluster in rows.clusterOfRow where cluster >= 0 && Int(cluster) < clusterCount {
                starts[Int(cluster) + 1] += 1
            }
            for cluster in 0..<clusterCount { starts[cluster + 1] += starts[cluster] }
            var next = starts
            var members = [Int32](repeating: 0, count: starts[clusterCount])
            for (row, cluster) in rows.clusterOfRow.enumerated() where cluster >= 0 && Int(cluster) < clusterCount {
                members[next[Int(cluster)]] = Int32(row)
                next[Int(cluster)] += 1
            }
            var artistCounts = [Int32](repeating: 0, count: credits.artistNames.count)
            var genreCounts = [Int32](repeating: 0, count: credits.genreNames.count)
            var seen = Set<Int32>()
            for cluster in 0..<clusterCount {
                var touchedArtists: [Int32] = []
                var touchedGenres: [Int32] = []
                for row in members[starts[cluster]..<starts[cluster + 1]].map(Int.init) {
                    let artist = credits.mainArtists[row]
                    if artist >= 0 {
                        if artistCounts[Int(artist)] == 0 { touchedArtists.append(artist) }
                        artistCounts[Int(artist)] += 1
                    }
                    let rowGenres = credits.genres(ofRow: row)
                    seen.removeAll(keepingCapacity: true)
                    for genre in rowGenres where rowGenres.count == 1 || seen.insert(genre).inserted {
                        if genreCounts[Int(genre)] == 0 { touchedGenres.append(genre) }
                        genreCounts[Int(genre)] += 1
                    }
                }
                for code in touchedArtists.map(Int.init) {
                    let name = credits.artistNames[code]
                    if !name.isEmpty { artists[cluster, default: [:]][name, default: 0] += Int(artistCounts[code]) }
                    artistCounts[code] = 0
                }
                for code in touchedGenres.map(Int.init) {
                    let name = credits.genreNames[code]
                    if !name.isEmpty { genres[cluster, default: [:]][name, default: 0] += Int(genreCounts[code]) }
                    genreCounts[code] = 0
                }
            }
            return (artists, genres)
        }
        for index in run.trackIDs.indices {
            let cluster = Int(run.clusters[index])
            guard let track = input.tracks[run.trackIDs[index]] else { continue }
            if let artist = track.artists.first, !artist.isEmpty {
                artists[cluster, default: [:]][artist, default: 0] += 1
            }
            for genre in Set(track.genres) where !genre.isEmpty {
                genres[cluster, default: [:]][genre, default: 0] += 1
            }
        }
        return (artists, genres)
    }

    /// Milliseconds of non-skipped plays per cluster of the run.
    static func vibeListening(input: Input, run: ReportRun) -> [Int: Int] {
        var result: [Int: Int] = [:]
        for play in input.plays where !play.isSkip {
            guard let id = play.trackID, let assignment = run.assignment(of: id) else { continue }
            result[assignment.cluster, default: 0] += play.msPlayed
        }
        return result
    }
}
