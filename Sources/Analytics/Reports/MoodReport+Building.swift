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
        lookup: ([Int64]) throws -> [Int64: TrackCredit]
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
