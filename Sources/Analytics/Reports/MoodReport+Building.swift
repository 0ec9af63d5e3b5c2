import Features
import Foundation

extension MoodReport {
    /// Computes a report from values read from the store.
    ///
    /// - Parameter input: The library's features, tracks, optional clustering run and plays.
    /// - Returns: The report; sections without data (no run, no plays) are `nil`.
    /// - Throws: ``AnalyticsError`` when the principal component analysis fails.
    /// - Complexity: O(*n* · *d*² + *p*) for *n* tracks of *d* features and *p* plays, plus
    ///   O(*n* log *n*) for medians.
    public init(_ input: Input) throws {
        // A play whose duration is outside 0…100 hours is no measurement (and summing such values
        // could overflow); it is left out like a play with no time.
        var input = input
        input.plays.removeAll { !Track.validDurationMS.contains($0.msPlayed) }
        let statistics = LibraryStatistics(table: input.table)
        schemaVersion = MoodReport.currentSchemaVersion
        // Foundation on Linux names UTC "GMT"; say UTC, as --utc does.
        timeZone =
            ["GMT", "Etc/UTC", "Etc/GMT"].contains(input.timeZone.identifier) ? "UTC" : input.timeZone.identifier
        overview = input.overview
        features = MoodReport.distributions(of: input.table)
        moodMap = MoodReport.moodMap(of: input.table)
        vibes = input.run.map { MoodReport.vibesSection(of: $0, input: input, statistics: statistics) }
        map = try MoodReport.libraryMap(input: input)
        listening = input.plays.isEmpty ? nil : MoodReport.listening(input: input)
        outliers = MoodReport.outliers(input: input, statistics: statistics)
        tracks = input.includesTrackList ? MoodReport.trackList(input: input) : nil
    }
}

/// The mean and population standard deviation of every feature over the tracks that have it.
struct LibraryStatistics {
    var means: [Double]
    var deviations: [Double]

    init(table: FeatureTable) {
        let width = FeatureTable.columnCount
        var sums = [Double](repeating: 0, count: width)
        var squares = [Double](repeating: 0, count: width)
        var counts = [Int](repeating: 0, count: width)
        for (index, value) in table.values.enumerated() where !value.isNaN {
            sums[index % width] += Double(value)
            squares[index % width] += Double(value) * Double(value)
            counts[index % width] += 1
        }
        let means = (0..<width).map { counts[$0] > 0 ? sums[$0] / Double(counts[$0]) : 0 }
        self.means = means
        deviations = (0..<width).map { column in
            guard counts[column] > 0 else { return 0 }
            return Swift.max(0, squares[column] / Double(counts[column]) - means[column] * means[column]).squareRoot()
        }
    }

    /// How far `value` of `feature` lies from the library mean, in standard deviations.
    func zScore(_ value: Double, of feature: AudioFeature) -> Double {
        let column = FeatureTable.columnIndex(of: feature)
        return deviations[column] > 0 ? (value - means[column]) / deviations[column] : 0
    }
}

// MARK: - Distributions

extension MoodReport {
    /// The features shown as histograms, in display order.
    static let histogramFeatures: [AudioFeature] = [
        .danceability, .energy, .valence, .acousticness, .instrumentalness, .speechiness, .liveness, .loudness,
        .tempo, .key, .mode,
    ]

    /// A stored `Float` as the decimal it was written as: `Float(0.9)` becomes `0.9`, not
    /// `0.899999976`, so that a value on a bin edge falls in the bin it names.
    static func decimal(_ value: Float) -> Double {
        Double(value.description) ?? Double(value)
    }

    static func distributions(of table: FeatureTable) -> [FeatureDistribution] {
        histogramFeatures.map { feature in
            let values = (0..<table.rowCount).compactMap { table.value(row: $0, feature: feature).map(decimal) }
            return distribution(of: feature, values: values, rowCount: table.rowCount)
        }
    }

    /// The histogram of one feature's values; see ``FeatureDistribution`` for the bins.
    static func distribution(of feature: AudioFeature, values: [Double], rowCount: Int) -> FeatureDistribution {
        let sorted = values.sorted()
        var result = FeatureDistribution(
            feature: feature.rawValue,
            unit: feature.unit,
            count: values.count,
            missing: rowCount - values.count,
            mean: nil,
            median: nil,
            minimum: sorted.first,
            maximum: sorted.last,
            bins: []
        )
        guard let minimum = sorted.first, let maximum = sorted.last else { return result }
        result.mean = values.reduce(0, +) / Double(values.count)
        let middle = sorted.count / 2
        result.median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2

        let edges: [Double]
        switch feature {
        case .key: edges = (0...12).map { Double($0) - 0.5 }
        case .mode: edges = [-0.5, 0.5, 1.5]
        case .timeSignature: edges = (3...8).map { Double($0) - 0.5 }
        case .loudness, .tempo:
            let width = feature == .loudness ? 5.0 : 20.0
            let lower = (minimum / width).rounded(.down) * width
            let upper = Swift.max(lower + width, (maximum / width).rounded(.up) * width)
            edges = stride(from: lower, through: upper + width / 2, by: width).map { $0 + 0 }  // + 0 turns −0 into 0
        default: edges = (0...10).map { Double($0) / 10 }
        }
        var counts = [Int](repeating: 0, count: edges.count - 1)
        for value in values {
            // The bin whose lower edge is the last one at or below the value, clamped to the ends.
            var bin = 0
            var high = edges.count - 1
            while bin < high - 1 {
                let mid = (bin + high) / 2
                if edges[mid] <= value { bin = mid } else { high = mid }
            }
            counts[Swift.min(bin, counts.count - 1)] += 1
        }
        result.bins = counts.indices.map {
            FeatureDistribution.Bin(lower: edges[$0], upper: edges[$0 + 1], count: counts[$0])
        }
        return result
    }
}

// MARK: - Mood map

extension MoodReport {
    /// The number of grid cells along each axis of the valence–energy map.
    static let moodGridSize = 10

    /// The quadrant of a track by absolute valence and energy, split at 0.5.
    static func quadrant(valence: Double, energy: Double) -> Mood {
        Mood(valence: valence - 0.5, energy: energy - 0.5)
    }

    /// The Organize Your Music soft moods of one point, in the order happy, sad, angry, chill.
    static func softMoods(
        valence v: Double,
        energy e: Double
    ) -> (
        happy: Double, sad: Double, angry: Double, chill: Double
    ) {
        (e * v, (1 - e) * (1 - v), e * (1 - v), (1 - e) * v)
    }

    static func moodMap(of table: FeatureTable) -> MoodMap {
        let size = moodGridSize
        var grid = [[Int]](repeating: [Int](repeating: 0, count: size), count: size)
        var quadrantCounts: [Mood: Int] = [:]
        var sums = (happy: 0.0, sad: 0.0, angry: 0.0, chill: 0.0)
        var count = 0
        for row in 0..<table.rowCount {
            guard let valence = table.value(row: row, feature: .valence).map(decimal),
                let energy = table.value(row: row, feature: .energy).map(decimal)
            else { continue }
            let v = Swift.min(1, Swift.max(0, valence))
            let e = Swift.min(1, Swift.max(0, energy))
            count += 1
            quadrantCounts[quadrant(valence: v, energy: e), default: 0] += 1
            // The tiny offset keeps 0.3 × 10 in cell 3 whatever the rounding of the product.
            grid[Swift.min(size - 1, Int(e * Double(size) + 1e-9))][
                Swift.min(size - 1, Int(v * Double(size) + 1e-9))
            ] += 1
            let moods = softMoods(valence: v, energy: e)
            sums.happy += moods.happy
            sums.sad += moods.sad
            sums.angry += moods.angry
            sums.chill += moods.chill
        }
        let n = Double(Swift.max(count, 1))
        return MoodMap(
            tracks: count,
            quadrants: Mood.allCases.map { mood in
                let tracks = quadrantCounts[mood] ?? 0
                return MoodMap.Quadrant(mood: mood.rawValue, tracks: tracks, share: count > 0 ? Double(tracks) / n : 0)
            },
            softMoods: MoodMap.SoftMoods(
                happy: sums.happy / n,
                sad: sums.sad / n,
                angry: sums.angry / n,
                chill: sums.chill / n
            ),
            gridSize: size,
            grid: grid
        )
    }
}

// MARK: - Vibes

extension MoodReport {
    static func reference(_ id: Int64, in tracks: [Int64: ReportTrack]) -> TrackReference {
        let track = tracks[id]
        return TrackReference(id: id, name: track?.name ?? "track \(id)", artists: track?.artists ?? [])
    }

    static func vibesSection(of run: ReportRun, input: Input, statistics: LibraryStatistics) -> VibesSection {
        var members = [Int: [(id: Int64, distance: Double)]]()
        for (id, assignment) in run.assignments {
            members[assignment.cluster, default: []].append((id, assignment.distance))
        }
        let listened = vibeListening(input: input, run: run)
        let totalListened = listened.values.reduce(0, +)
        let vibes = run.vibes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }.map {
            profile in
            let tracks = members[profile.cluster] ?? []
            let nearest = tracks.sorted { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id < $1.id }
                .prefix(input.representativeCount)
            var artistCounts: [String: Int] = [:]
            for track in tracks {
                if let artist = input.tracks[track.id]?.artists.first, !artist.isEmpty {
                    artistCounts[artist, default: 0] += 1
                }
            }
            let topArtists = artistCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .prefix(input.topArtistCount).map { VibesSection.ArtistCount(artist: $0.key, tracks: $0.value) }
            var genreCounts: [String: Int] = [:]
            for track in tracks {
                for genre in Set(input.tracks[track.id]?.genres ?? []) where !genre.isEmpty {
                    genreCounts[genre, default: 0] += 1
                }
            }
            let topGenres = genreCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
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
                representatives: nearest.map { reference($0.id, in: input.tracks) },
                topArtists: Array(topArtists),
                topGenres: topGenres.isEmpty ? nil : Array(topGenres)
            )
        }
        return VibesSection(
            runID: run.id,
            features: run.scaling.schema.features.map(\.rawValue),
            scaling: run.scaling.schema.scaling.rawValue,
            tracks: run.assignments.count,
            vibes: vibes
        )
    }

    /// Milliseconds of non-skipped plays per cluster of the run.
    static func vibeListening(input: Input, run: ReportRun) -> [Int: Int] {
        var result: [Int: Int] = [:]
        for play in input.plays where !play.isSkip {
            guard let id = play.trackID, let assignment = run.assignments[id] else { continue }
            result[assignment.cluster, default: 0] += play.msPlayed
        }
        return result
    }
}

// MARK: - Library map

extension MoodReport {
    /// Projects the library on its first two principal components.
    ///
    /// With a run, the points are the run's tracks in the run's own scaled space (its saved
    /// scaling applied to the current features) coloured by vibe; without one, the tracks complete
    /// in the default schema, z-scored, coloured by mood quadrant.
    static func libraryMap(input: Input) throws -> LibraryMap? {
        let table = input.table
        var rows: [Int] = []
        var groups: [Int] = []
        let groupNames: [String]
        let matrix: Matrix
        let columns: [String]
        let basis: String
        if let run = input.run {
            let scaling = run.scaling
            let vibeOrder = run.vibes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }
            let groupOfCluster = Dictionary(uniqueKeysWithValues: vibeOrder.enumerated().map { ($1.cluster, $0) })
            groupNames = vibeOrder.map(\.name)
            var elements: [Float] = []
            rowLoop: for row in 0..<table.rowCount {
                guard let assignment = run.assignments[table.trackIDs[row]] else { continue }
                var scaled: [Float] = []
                for column in scaling.columns {
                    guard let raw = table.value(row: row, feature: column.feature) else { continue rowLoop }
                    scaled.append(Float(column.scaled(value: Double(raw))))
                }
                elements.append(contentsOf: scaled)
                rows.append(row)
                groups.append(groupOfCluster[assignment.cluster] ?? 0)
            }
            matrix = Matrix(rowCount: rows.count, columnCount: scaling.columns.count, elements: elements)
            columns = scaling.columns.map(\.name)
            basis =
                "run \(run.id): \(scaling.schema.scaling.rawValue) over \(scaling.schema.features.map(\.rawValue).joined(separator: ", "))"
        } else {
            let schema = fallbackSchema(for: table)
            let space = schema.makeSpace(from: table)
            groupNames = Mood.allCases.map(\.rawValue)
            for tableRow in space.tableRows {
                let row = Int(tableRow)
                rows.append(row)
                let valence = decimal(table.value(row: row, feature: .valence) ?? 0.5)
                let energy = decimal(table.value(row: row, feature: .energy) ?? 0.5)
                groups.append(Mood.allCases.firstIndex(of: quadrant(valence: valence, energy: energy))!)
            }
            matrix = space.matrix.values
            columns = space.matrix.columnNames
            basis = "no run, zscore over \(schema.features.map(\.rawValue).joined(separator: ", "))"
        }
        guard matrix.rowCount >= 2 else { return nil }
        let pca = try PCA.fit(matrix)
        let keptComponents = Swift.min(2, pca.componentCount)
        var twoComponents = pca
        twoComponents.components = Matrix(
            rowCount: keptComponents,
            columnCount: matrix.columnCount,
            elements: Array(pca.components.elements.prefix(keptComponents * matrix.columnCount))
        )
        let projected = twoComponents.project(matrix)
        let stride = Swift.max(1, (matrix.rowCount + input.mapPointLimit - 1) / input.mapPointLimit)
        let points = Swift.stride(from: 0, to: matrix.rowCount, by: stride).map { index in
            LibraryMap.Point(
                x: rounded(Double(projected[index, 0]), digits: 3),
                y: keptComponents > 1 ? rounded(Double(projected[index, 1]), digits: 3) : 0,
                group: groups[index]
            )
        }
        let loadings = columns.enumerated().map { column, name in
            LibraryMap.Loading(
                column: name,
                pc1: rounded(Double(pca.components[0, column]), digits: 4),
                pc2: keptComponents > 1 ? rounded(Double(pca.components[1, column]), digits: 4) : 0
            )
        }
        return LibraryMap(
            basis: basis,
            explainedVarianceRatios: pca.explainedVarianceRatios,
            loadings: loadings,
            groups: groupNames,
            trackCount: matrix.rowCount,
            points: points
        )
    }

    /// The space used without a run: the default features that at least half of the tracks have,
    /// z-scored, so that a feature a source lacks (or one stray missing tempo) does not empty it.
    static func fallbackSchema(for table: FeatureTable) -> FeatureSchema {
        let features = FeatureSchema.defaultFeatures.filter { feature in
            let present = (0..<table.rowCount).count { table.value(row: $0, feature: feature) != nil }
            return present * 2 >= table.rowCount && present > 0
        }
        return (try? FeatureSchema(features: features)) ?? .default
    }

    static func rounded(_ value: Double, digits: Int) -> Double {
        let factor = pow(10, Double(digits))
        return (value * factor).rounded() / factor
    }
}

// MARK: - Track list

extension MoodReport {
    /// The features the track list carries: the continuous ones a scatter can use as axes.
    static let trackListFeatures: [AudioFeature] = [
        .danceability, .energy, .valence, .acousticness, .instrumentalness, .speechiness, .liveness, .loudness,
        .tempo,
    ]

    /// Lists every track of the feature table, grouped by vibe (or mood quadrant without a run).
    ///
    /// - Complexity: O(*n* log *n*) for *n* tracks with features.
    static func trackList(input: Input) -> TrackList {
        let table = input.table
        let rows = (0..<table.rowCount).sorted { table.trackIDs[$0] < table.trackIDs[$1] }
        var groupNames: [String]
        var groupOfRow: [Int] = []
        if let run = input.run {
            let vibeOrder = run.vibes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }
            let groupOfCluster = Dictionary(uniqueKeysWithValues: vibeOrder.enumerated().map { ($1.cluster, $0) })
            groupNames = vibeOrder.map(\.name)
            let outside = groupNames.count
            for row in rows {
                let cluster = run.assignments[table.trackIDs[row]]?.cluster
                groupOfRow.append(cluster.flatMap { groupOfCluster[$0] } ?? outside)
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
        let entries = rows.enumerated().map { index, row -> TrackList.Entry in
            let id = table.trackIDs[row]
            let track = input.tracks[id]
            sizes[groupOfRow[index]] += 1
            return TrackList.Entry(
                id: id,
                name: track?.name ?? "track \(id)",
                artists: track?.artists ?? [],
                spotifyID: track?.spotifyID,
                filePath: track?.filePath,
                durationMS: track?.durationMS.flatMap { Track.validDurationMS.contains($0) ? $0 : nil },
                group: groupOfRow[index],
                distance: input.run?.assignments[id].map { rounded($0.distance, digits: 3) + 0 },
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
            entries: entries
        )
    }
}

// MARK: - Listening

extension MoodReport {
    /// The weekday labels, Monday first.
    static let weekdayLabels = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Running sums of one time bucket.
    struct BucketSums {
        var plays = 0
        var msPlayed = 0
        var skips = 0
        var skippedMS = 0
        var playsWithSkipData = 0
        var msWithFeatures = 0
        var valenceSum = 0.0
        var energySum = 0.0

        func bucket(label: String) -> TimeBucket {
            TimeBucket(
                label: label,
                plays: plays,
                msPlayed: msPlayed,
                skips: skips,
                skippedMS: skippedMS,
                playsWithSkipData: playsWithSkipData,
                msWithFeatures: msWithFeatures,
                valence: msWithFeatures > 0 ? valenceSum / Double(msWithFeatures) : nil,
                energy: msWithFeatures > 0 ? energySum / Double(msWithFeatures) : nil
            )
        }
    }

    /// The local month, weekday (0 = Monday) and hour a play ended in.
    static func localBucket(of date: Date, calendar: Calendar) -> (year: Int, month: Int, weekday: Int, hour: Int) {
        let parts = calendar.dateComponents([.year, .month, .weekday, .hour], from: date)
        // Calendar weekdays run from 1 = Sunday; shift so that Monday is 0.
        return (parts.year!, parts.month!, (parts.weekday! + 5) % 7, parts.hour!)
    }

    static func listening(input: Input) -> Listening {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = input.timeZone
        let mood = Dictionary(
            uniqueKeysWithValues: (0..<input.table.rowCount).compactMap { row -> (Int64, (Double, Double))? in
                guard let v = input.table.value(row: row, feature: .valence),
                    let e = input.table.value(row: row, feature: .energy)
                else { return nil }
                return (input.table.trackIDs[row], (decimal(v), decimal(e)))
            }
        )
        var months: [Int: BucketSums] = [:]  // year * 12 + month - 1
        var weekdays = [BucketSums](repeating: BucketSums(), count: 7)
        var hours = [BucketSums](repeating: BucketSums(), count: 24)
        var total = BucketSums()
        var withoutFeatures = (plays: 0, ms: 0)
        var unmatched = 0
        var soft = (happy: 0.0, sad: 0.0, angry: 0.0, chill: 0.0)
        var playsWithFeatures = 0
        var first = input.plays[0].endedAt
        var last = first

        for play in input.plays {
            first = Swift.min(first, play.endedAt)
            last = Swift.max(last, play.endedAt)
            if play.trackID == nil { unmatched += 1 }
            let local = localBucket(of: play.endedAt, calendar: calendar)
            let point = play.isSkip ? nil : play.trackID.flatMap { mood[$0] }
            if !play.isSkip && point == nil {
                withoutFeatures.plays += 1
                withoutFeatures.ms += play.msPlayed
            }
            if let point {
                playsWithFeatures += 1
                let weight = Double(play.msPlayed)
                let moods = softMoods(
                    valence: Swift.min(1, Swift.max(0, point.0)),
                    energy: Swift.min(1, Swift.max(0, point.1))
                )
                soft.happy += weight * moods.happy
                soft.sad += weight * moods.sad
                soft.angry += weight * moods.angry
                soft.chill += weight * moods.chill
            }
            func add(_ sums: inout BucketSums) {
                sums.plays += 1
                sums.msPlayed += play.msPlayed
                if play.isSkip {
                    sums.skips += 1
                    sums.skippedMS += play.msPlayed
                }
                if play.skipIsRecorded || play.isSkip { sums.playsWithSkipData += 1 }
                if let point {
                    sums.msWithFeatures += play.msPlayed
                    sums.valenceSum += Double(play.msPlayed) * point.0
                    sums.energySum += Double(play.msPlayed) * point.1
                }
            }
            add(&months[local.year * 12 + local.month - 1, default: BucketSums()])
            add(&weekdays[local.weekday])
            add(&hours[local.hour])
            add(&total)
        }

        let firstMonth = months.keys.min()!
        let lastMonth = months.keys.max()!
        let byMonth = (firstMonth...lastMonth).map { key in
            (months[key] ?? BucketSums()).bucket(label: String(format: "%04d-%02d", key / 12, key % 12 + 1))
        }
        let weight = Double(total.msWithFeatures)
        var vibeListening: [VibeListening] = []
        if let run = input.run {
            let listened = MoodReport.vibeListening(input: input, run: run)
            let sum = listened.values.reduce(0, +)
            vibeListening = run.vibes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }.map {
                vibe in
                let ms = listened[vibe.cluster] ?? 0
                return VibeListening(
                    name: vibe.name,
                    msPlayed: ms,
                    listenedShare: sum > 0 ? Double(ms) / Double(sum) : 0,
                    libraryShare: vibe.share
                )
            }
        }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = input.timeZone
        let overall = total.bucket(label: "all")
        return Listening(
            plays: total.plays,
            msPlayed: total.msPlayed,
            skips: total.skips,
            skippedMS: total.skippedMS,
            playsWithSkipData: total.playsWithSkipData,
            playsWithFeatures: playsWithFeatures,
            msWithFeatures: total.msWithFeatures,
            playsWithoutFeatures: withoutFeatures.plays,
            msWithoutFeatures: withoutFeatures.ms,
            unmatchedPlays: unmatched,
            firstPlay: formatter.string(from: first),
            lastPlay: formatter.string(from: last),
            valence: overall.valence,
            energy: overall.energy,
            softMoods: weight > 0
                ? MoodMap.SoftMoods(
                    happy: soft.happy / weight,
                    sad: soft.sad / weight,
                    angry: soft.angry / weight,
                    chill: soft.chill / weight
                )
                : nil,
            byMonth: byMonth,
            byWeekday: weekdays.enumerated().map { $1.bucket(label: weekdayLabels[$0]) },
            byHour: hours.enumerated().map { $1.bucket(label: String(format: "%02d", $0)) },
            vibes: vibeListening
        )
    }
}

// MARK: - Outliers

extension MoodReport {
    static func outliers(input: Input, statistics: LibraryStatistics) -> Outliers {
        let table = input.table
        let rowOfTrack = Dictionary(uniqueKeysWithValues: table.trackIDs.enumerated().map { ($1, $0) })
        let candidates: [(id: Int64, distance: Double, vibe: String?)]
        let basis: String
        if let run = input.run {
            let names = Dictionary(uniqueKeysWithValues: run.vibes.map { ($0.cluster, $0.name) })
            candidates = run.assignments.map { ($0.key, $0.value.distance, names[$0.value.cluster]) }
            basis = "distance to vibe centroid"
        } else {
            let space = fallbackSchema(for: table).makeSpace(from: table)
            let norms = space.matrix.values.squaredRowNorms()
            candidates = space.matrix.trackIDs.enumerated().map { ($1, Double(norms[$0]).squareRoot(), nil) }
            basis = "distance from library mean"
        }
        let top = candidates.sorted { $0.distance != $1.distance ? $0.distance > $1.distance : $0.id < $1.id }
            .prefix(input.outlierCount)
        let tracks = top.map { candidate -> Outliers.Track in
            var standsOut: [FeatureValue] = []
            if let row = rowOfTrack[candidate.id] {
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
