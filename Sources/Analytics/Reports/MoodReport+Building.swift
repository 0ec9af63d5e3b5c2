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
        let rows = ReportRows(input: input)
        schemaVersion = MoodReport.currentSchemaVersion
        // Foundation on Linux names UTC "GMT"; say UTC, as --utc does.
        timeZone =
            ["GMT", "Etc/UTC", "Etc/GMT"].contains(input.timeZone.identifier) ? "UTC" : input.timeZone.identifier
        overview = input.overview
        features = MoodReport.distributions(of: input.table)
        moodMap = MoodReport.moodMap(of: input.table)
        vibes = input.run.map { MoodReport.vibesSection(of: $0, input: input, rows: rows) }
        map = try MoodReport.libraryMap(input: input, rows: rows)
        listening = input.plays.isEmpty ? nil : MoodReport.listening(input: input, rows: rows)
        outliers = MoodReport.outliers(input: input, statistics: statistics, rows: rows)
        tracks = input.includesTrackList ? MoodReport.trackList(input: input, rows: rows) : nil
        if let lookup = input.trackLookup { try nameTracks(input: input, lookup: lookup) }
    }

    /// Names the tracks the report shows that `input.tracks` lacks, with one call of `lookup`.
    private mutating func nameTracks(
        input: Input,
        lookup: ([Int64]) throws -> [Int64: ReportTrack]
    ) throws {
        var wanted = Set<Int64>()
        for vibe in vibes?.vibes ?? [] { wanted.formUnion(vibe.representatives.map(\.id)) }
        wanted.formUnion(outliers.tracks.map(\.track.id))
        wanted.formUnion(tracks?.entries.map(\.id) ?? [])
        let missing = wanted.filter { input.tracks[$0] == nil }.sorted()
        guard !missing.isEmpty else { return }
        let found = try lookup(missing)
        func named(_ reference: TrackReference) -> TrackReference {
            guard input.tracks[reference.id] == nil, let track = found[reference.id] else { return reference }
            return TrackReference(id: reference.id, name: track.name, artists: track.artists)
        }
        if var section = vibes {
            for index in section.vibes.indices {
                section.vibes[index].representatives = section.vibes[index].representatives.map(named)
            }
            vibes = section
        }
        for index in outliers.tracks.indices { outliers.tracks[index].track = named(outliers.tracks[index].track) }
        if var list = tracks {
            for index in list.entries.indices where input.tracks[list.entries[index].id] == nil {
                guard let track = found[list.entries[index].id] else { continue }
                list.entries[index].name = track.name
                list.entries[index].artists = track.artists
                list.entries[index].spotifyID = track.spotifyID
                list.entries[index].filePath = track.filePath
                list.entries[index].durationMS = track.durationMS.flatMap {
                    Track.validDurationMS.contains($0) ? $0 : nil
                }
            }
            tracks = list
        }
    }
}

/// The run's cluster and distance of every row of the feature table, found once: the sections
/// look rows up here instead of searching the run per track.
struct ReportRows {
    /// Per table row, its cluster in the run, or −1 when the run did not cluster it (or there is
    /// no run).
    var clusterOfRow: [Int32]
    /// Per table row, its distance to its centroid (NaN outside the run).
    var distanceOfRow: [Float]
    /// Finds a track's row in the table.
    var tableIndex: TrackIndex

    init(input: MoodReport.Input) {
        let table = input.table
        tableIndex = TrackIndex(table.trackIDs)
        clusterOfRow = [Int32](repeating: -1, count: table.rowCount)
        distanceOfRow = [Float](repeating: .nan, count: table.rowCount)
        guard let run = input.run else { return }
        let ids = table.trackIDs
        if tableIndex.ascends {
            // Both ascend: one merge.
            var next = 0
            for row in ids.indices {
                while next < run.trackIDs.count, run.trackIDs[next] < ids[row] { next += 1 }
                guard next < run.trackIDs.count else { break }
                if run.trackIDs[next] == ids[row] {
                    clusterOfRow[row] = run.clusters[next]
                    distanceOfRow[row] = run.distances[next]
                }
            }
        } else {
            for row in ids.indices {
                guard let index = run.index(of: ids[row]) else { continue }
                clusterOfRow[row] = run.clusters[index]
                distanceOfRow[row] = run.distances[index]
            }
        }
    }
}

/// The `count` best elements of a sequence by `isBetter`, best first, kept in one pass without
/// sorting the whole sequence: a report's three representatives of a vibe of 200,000 tracks.
struct BestElements<Element> {
    private(set) var elements: [Element] = []
    let count: Int
    let isBetter: (Element, Element) -> Bool

    init(count: Int, by isBetter: @escaping (Element, Element) -> Bool) {
        self.count = count
        self.isBetter = isBetter
    }

    mutating func offer(_ element: Element) {
        guard count > 0 else { return }
        if elements.count == count {
            guard isBetter(element, elements[elements.count - 1]) else { return }
            elements.removeLast()
        }
        let position = elements.firstIndex { isBetter(element, $0) } ?? elements.count
        elements.insert(element, at: position)
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
    ///
    /// That decimal is the one `value.description` prints: the fewest digits that read back as
    /// `value`. Printing and parsing took most of a report's time on a million tracks, so the
    /// digits are searched here by arithmetic: for 0, 1, 2, … decimals, the nearest multiple of
    /// 10⁻ᵏ, which an exact integer divided by an exact power of ten gives correctly rounded. A
    /// value that needs more than 9 decimals, or is too large for that, is printed and parsed.
    static func decimal(_ value: Float) -> Double {
        let double = Double(value)
        if value.isFinite, abs(double) < 1e6 {
            var scale = 1.0
            for _ in 0...9 {
                // Halfway between two candidates, the even last digit, as `description` chooses.
                let candidate = (double * scale).rounded(.toNearestOrEven) / scale
                if Float(candidate) == value { return candidate + 0 }  // + 0 turns −0 into 0
                scale *= 10
            }
        }
        return Double(value.description) ?? double
    }

    /// The histogram of every feature of ``histogramFeatures``, on two threads: each feature on
    /// its own, so the result does not depend on the threads.
    static func distributions(of table: FeatureTable) -> [FeatureDistribution] {
        let chunks = histogramFeatures.indices.map { $0..<($0 + 1) }
        let threadCount = table.rowCount >= 50_000 ? Parallelism.defaultThreadCount : 1
        return Kernels.parallelChunks(chunks, threadCount: threadCount) { chunk in
            let feature = histogramFeatures[chunk.lowerBound]
            var values: [Float] = []
            values.reserveCapacity(table.rowCount)
            let column = FeatureTable.columnIndex(of: feature)
            table.values.withUnsafeBufferPointer { buffer in
                var index = column
                while index < buffer.count {
                    if !buffer[index].isNaN { values.append(buffer[index]) }
                    index += FeatureTable.columnCount
                }
            }
            return distribution(of: feature, values: values, rowCount: table.rowCount)
        }
    }

    /// The `k`-th smallest of `values` (0-based), reordering them: a quickselect that splits three
    /// ways, so that a column of few distinct values (mode, key) stays linear.
    static func select<Value: Comparable>(_ k: Int, in values: inout [Value]) -> Value {
        precondition(values.indices.contains(k), "select needs an index inside the values")
        var low = 0
        var high = values.count - 1
        while low < high {
            let pivot = Swift.max(
                Swift.min(values[low], values[high]),
                Swift.min(Swift.max(values[low], values[high]), values[(low + high) / 2])
            )
            // [low, less) < pivot, [less, index) == pivot, (greater, high] > pivot.
            var less = low
            var index = low
            var greater = high
            while index <= greater {
                if values[index] < pivot {
                    values.swapAt(index, less)
                    less += 1
                    index += 1
                } else if values[index] > pivot {
                    values.swapAt(index, greater)
                    greater -= 1
                } else {
                    index += 1
                }
            }
            if k < less {
                high = less - 1
            } else if k > greater {
                low = greater + 1
            } else {
                return pivot
            }
        }
        return values[k]
    }

    /// The histogram of one feature's values; see ``FeatureDistribution`` for the bins.
    ///
    /// The values stay stored `Float`s: ``decimal(_:)`` rises with its argument, so the minimum,
    /// maximum and median are those of the floats, read as decimals, and only the mean and the
    /// bins read every value as its decimal.
    static func distribution(of feature: AudioFeature, values: [Float], rowCount: Int) -> FeatureDistribution {
        var result = FeatureDistribution(
            feature: feature.rawValue,
            unit: feature.unit,
            count: values.count,
            missing: rowCount - values.count,
            mean: nil,
            median: nil,
            minimum: values.min().map(decimal),
            maximum: values.max().map(decimal),
            bins: []
        )
        guard let minimum = result.minimum, let maximum = result.maximum else { return result }
        var scratch = values
        let middle = values.count / 2
        let upper = decimal(select(middle, in: &scratch))
        // After selecting the middle, everything before it is at most it: the lower middle is
        // their largest.
        result.median = values.count % 2 == 1 ? upper : (decimal(scratch[0..<middle].max()!) + upper) / 2

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
        var sum = 0.0
        for stored in values {
            let value = decimal(stored)
            sum += value
            // The bin whose lower edge is the last one at or below the value, clamped to the ends.
            var bin = 0
            var high = edges.count - 1
            while bin < high - 1 {
                let mid = (bin + high) / 2
                if edges[mid] <= value { bin = mid } else { high = mid }
            }
            counts[Swift.min(bin, counts.count - 1)] += 1
        }
        result.mean = sum / Double(values.count)
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

// MARK: - Library map

extension MoodReport {
    /// Projects the library on its first two principal components.
    ///
    /// With a run, the points are the run's tracks in the run's own scaled space (its saved
    /// scaling applied to the current features) coloured by vibe; without one, the tracks complete
    /// in the default schema, z-scored, coloured by mood quadrant.
    static func libraryMap(input: Input, rows tableRows: ReportRows) throws -> LibraryMap? {
        let table = input.table
        // The points: table rows, each with its group; `scaledRow` writes the coordinates of the
        // point at an index of `rows`.
        // Compact and reserved: on a million tracks, two growing arrays of `Int` were 16 MB (32 MB
        // while they grew) of the report's peak memory.
        var rows: [Int32] = []
        var groups: [Int32] = []
        rows.reserveCapacity(table.rowCount)
        groups.reserveCapacity(table.rowCount)
        let groupNames: [String]
        let columns: [String]
        var basis: String
        let width: Int
        let scaledRow: (Int, inout [Float]) -> Void
        if let run = input.run {
            let scaling = run.scaling
            let vibeOrder = run.vibes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }
            let groupOfCluster = Dictionary(uniqueKeysWithValues: vibeOrder.enumerated().map { ($1.cluster, $0) })
            groupNames = vibeOrder.map(\.name)
            let scalingColumns = scaling.columns
            let features = scalingColumns.map { FeatureTable.columnIndex(of: $0.feature) }
            rowLoop: for row in 0..<table.rowCount {
                let cluster = tableRows.clusterOfRow[row]
                guard cluster >= 0 else { continue }
                for feature in features where table.values[row * FeatureTable.columnCount + feature].isNaN {
                    continue rowLoop
                }
                rows.append(Int32(row))
                groups.append(Int32(groupOfCluster[Int(cluster)] ?? 0))
            }
            width = scalingColumns.count
            let pointRows = rows
            scaledRow = { point, output in
                let row = Int(pointRows[point])
                for (index, column) in scalingColumns.enumerated() {
                    let raw = table.values[row * FeatureTable.columnCount + features[index]]
                    output.append(Float(column.scaled(value: Double(raw))))
                }
            }
            columns = scalingColumns.map(\.name)
            basis =
                "run \(run.id): \(scaling.schema.scaling.rawValue) over \(scaling.schema.features.map(\.rawValue).joined(separator: ", "))"
        } else {
            let schema = fallbackSchema(for: table)
            let space = schema.makeSpace(from: table)
            groupNames = Mood.allCases.map(\.rawValue)
            for tableRow in space.tableRows {
                let row = Int(tableRow)
                rows.append(tableRow)
                let valence = decimal(table.value(row: row, feature: .valence) ?? 0.5)
                let energy = decimal(table.value(row: row, feature: .energy) ?? 0.5)
                groups.append(Int32(Mood.allCases.firstIndex(of: quadrant(valence: valence, energy: energy))!))
            }
            let matrix = space.matrix.values
            width = matrix.columnCount
            // The space's rows are `rows`, in order.
            scaledRow = { point, output in
                output.append(contentsOf: matrix.elements[(point * width)..<((point + 1) * width)])
            }
            columns = space.matrix.columnNames
            basis = "no run, zscore over \(schema.features.map(\.rawValue).joined(separator: ", "))"
        }
        guard rows.count >= 2 else { return nil }
        // Fitted on an even sample of at most `mapFitLimit` points: on a million tracks, the
        // components of 200,000 agree with those of all to the third decimal, in a fifth of the
        // time and without a second copy of the library's matrix.
        let fitLimit = Swift.max(2, input.mapFitLimit)
        let fitted = rows.count <= fitLimit ? Array(rows.indices) : (0..<fitLimit).map { $0 * rows.count / fitLimit }
        if fitted.count < rows.count {
            basis += "; components fitted on an even sample of \(fitted.count) of the \(rows.count) tracks"
        }
        func matrix(of indices: [Int]) -> Matrix {
            var elements: [Float] = []
            elements.reserveCapacity(indices.count * width)
            for index in indices { scaledRow(index, &elements) }
            return Matrix(rowCount: indices.count, columnCount: width, elements: elements)
        }
        let pca = try PCA.fit(matrix(of: fitted))
        let keptComponents = Swift.min(2, pca.componentCount)
        var twoComponents = pca
        twoComponents.components = Matrix(
            rowCount: keptComponents,
            columnCount: width,
            elements: Array(pca.components.elements.prefix(keptComponents * width))
        )
        let stride = Swift.max(1, (rows.count + input.mapPointLimit - 1) / input.mapPointLimit)
        let drawn = Array(Swift.stride(from: 0, to: rows.count, by: stride))
        let projected = twoComponents.project(matrix(of: drawn))
        let points = drawn.indices.map { index in
            LibraryMap.Point(
                x: rounded(Double(projected[index, 0]), digits: 3),
                y: keptComponents > 1 ? rounded(Double(projected[index, 1]), digits: 3) : 0,
                group: Int(groups[drawn[index]])
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
            trackCount: rows.count,
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

    static func listening(input: Input, rows: ReportRows) -> Listening {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = input.timeZone
        // A played track's valence and energy, found by its row in the table.
        func mood(_ id: Int64) -> (Double, Double)? {
            guard let row = rows.tableIndex.index(of: id),
                let v = input.table.value(row: row, feature: .valence),
                let e = input.table.value(row: row, feature: .energy)
            else { return nil }
            return (decimal(v), decimal(e))
        }
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
            let point = play.isSkip ? nil : play.trackID.flatMap(mood)
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
