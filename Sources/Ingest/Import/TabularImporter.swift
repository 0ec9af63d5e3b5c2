import Features
import Foundation

/// Imports CSV files with one track per row: audio-feature datasets (Kaggle, tidytuesday, "Top 50")
/// and Exportify playlist exports.
///
/// Columns are recognised by name in any order (`track_id`/`id`/`uri`, `track_name`, `energy`,
/// `Beats.Per.Minute`, …); columns it does not know are ignored and named in the summary.
struct TabularImporter {
    /// What a column holds.
    enum Role: Hashable {
        case spotifyID, alternateID, uri, name, artists, album, albumID, releaseDate, durationMS, durationSeconds
        case popularity, explicit, isrc, addedAt, addedBy
        case feature(AudioFeature)
        case tag(kind: String, isList: Bool)
        case ignored
    }

    /// Header names (lower case, letters and digits only) and what they hold.
    static let roles: [String: Role] = {
        var roles: [String: Role] = [
            "trackid": .spotifyID, "spotifyid": .spotifyID, "id": .alternateID, "uri": .uri, "trackuri": .uri,
            "spotifyuri": .uri,
            "trackname": .name, "name": .name, "title": .name, "song": .name, "track": .name,
            "trackartist": .artists, "artists": .artists, "artist": .artists, "artistname": .artists,
            "artistnames": .artists,
            "trackalbumname": .album, "albumname": .album, "album": .album,
            "trackalbumid": .albumID, "albumid": .albumID,
            "trackalbumreleasedate": .releaseDate, "releasedate": .releaseDate, "albumreleasedate": .releaseDate,
            "year": .releaseDate,
            "durationms": .durationMS, "trackdurationms": .durationMS, "length": .durationSeconds,
            "durations": .durationSeconds,
            "trackpopularity": .popularity, "popularity": .popularity,
            "explicit": .explicit, "isrc": .isrc, "addedat": .addedAt, "addedby": .addedBy,
            "beatsperminute": .feature(.tempo), "bpm": .feature(.tempo), "loudnessdb": .feature(.loudness),
            "timesignature": .feature(.timeSignature),
            "playlistgenre": .tag(kind: "genre", isList: false), "genre": .tag(kind: "genre", isList: false),
            "trackgenre": .tag(kind: "genre", isList: false), "topgenre": .tag(kind: "genre", isList: false),
            "playlistsubgenre": .tag(kind: "subgenre", isList: false),
            "playlistname": .tag(kind: "playlist", isList: false),
            "genres": .tag(kind: "artist-genre", isList: true), "recordlabel": .tag(kind: "label", isList: false),
            "": .ignored, "unnamed0": .ignored, "artistids": .ignored, "trackhref": .ignored, "analysisurl": .ignored,
            "type": .ignored,
            "playlistid": .ignored, "index": .ignored, "x": .ignored,
        ]
        for feature in AudioFeature.allCases {
            roles[feature.rawValue.filter { $0 != "_" }] = .feature(feature)
        }
        return roles
    }()

    /// The header name folded for lookup: `Loudness..dB..` → `loudnessdb`, `Track URI` → `trackuri`.
    static func normalizedHeader(_ name: String) -> String {
        String(
            name.lowercased().unicodeScalars.filter {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
            }
        )
    }

    /// Whether a header row looks like an Exportify export.
    ///
    /// Exportify's layouts over the years all name the track (`Track URI`, or `Spotify ID` /
    /// `Spotify URI` / `Track ID` in older ones), its artists (`Artist Name(s)`, or `Artist Name`)
    /// and when it was added (`Added At`, `Added By`), which no dataset does.
    static func isExportifyHeader(_ names: [String]) -> Bool {
        let normalized = Set(names.map(normalizedHeader))
        if normalized.contains("trackuri") && normalized.contains("artistnames") { return true }
        let namesTrack = !normalized.isDisjoint(with: ["spotifyid", "spotifyuri", "trackid", "trackuri"])
        let namesArtists = !normalized.isDisjoint(with: ["artistnames", "artistname"])
        let namesAdding = !normalized.isDisjoint(with: ["addedat", "addedby"])
        return namesTrack && namesArtists && namesAdding
    }

    /// How many audio-feature columns a header names.
    static func featureColumnCount(_ names: [String]) -> Int {
        names.count { if case .feature = roles[normalizedHeader($0)] { true } else { false } }
    }

    let format: ImportFormat
    let context: ImportContext
    var reader: CSVReader
    /// Values outside their valid range kept as missing (`--skip-invalid`), per field, counted
    /// by the parsing thread and handed to the context at the end.
    var invalidKeptAsMissing: [String: Int] = [:]

    /// Reads the whole file into the store.
    ///
    /// - Returns: The scale used for 0…1 features and how it was chosen.
    mutating func run(fileName: String) throws -> String {
        var record = CSVReader.Record(line: 1, lineStart: 0)
        guard try nextRecord(&record) else {
            throw context.error(line: 1, "the file is empty; expected a header row")
        }
        let header = (0..<record.count).map { reader.string(record, $0) }
        var roles: [Role] = []
        var seen: Set<Role> = []
        var ignored: [String] = []
        for name in header {
            let known = TabularImporter.roles[TabularImporter.normalizedHeader(name)]
            var role = known ?? .ignored
            if known == nil { ignored.append(name) }
            switch role {
            case .tag, .ignored: break
            // The first column of a role wins.
            default: if !seen.insert(role).inserted { role = .ignored }
            }
            roles.append(role)
        }
        if !ignored.isEmpty {
            context.notes.append("ignored columns: " + TabularImporter.summarized(ignored))
        }
        guard
            roles.contains(.name) || roles.contains(.spotifyID) || roles.contains(.alternateID) || roles.contains(.uri)
        else {
            throw context.error(
                line: 1,
                "the header names no track column; expected one of track_id, id, uri, Track URI or track_name (found: \(TabularImporter.summarized(header)))"
            )
        }
        let featureColumns = roles.enumerated().compactMap { index, role -> (Int, AudioFeature)? in
            if case .feature(let feature) = role { (index, feature) } else { nil }
        }
        if format == .featuresCSV && featureColumns.isEmpty {
            throw context.error(
                line: 1,
                "the header names no audio-feature column; expected columns such as danceability, energy, valence, tempo"
            )
        }

        let scale = try chooseScale(featureColumns: featureColumns)
        let source = FeatureSource.file(format: format.rawValue)
        var playlist: [LibraryWriter.PlaylistEntry] = []
        let isLikedSongs =
            fileName.lowercased().hasPrefix("liked_songs") || fileName.lowercased().hasPrefix("liked songs")
        var namesMissingAsNA = 0
        let (context, format) = (context, format)
        // Made once, not once a row.
        let tagSource = format.source
        // Rows are parsed on a thread of their own while this one writes them. Profiled on
        // 300,000 rows, parsing (with the match keys) is about a fifth of the work and the writes
        // the rest: the import of a million rows went from 34 to 29 s.
        try parsingAhead(roles: roles, header: header, scale: scale) { item in
            try context.row(bytesRead: item.bytesRead) {
                let parsed = try item.row.get()
                if parsed.hasNANames { namesMissingAsNA += 1 }
                let written = try context.writer.write(parsed.track, matchKey: parsed.matchKey)
                if let features = parsed.features {
                    try context.writer.write(features, coded: parsed.coded, trackID: written.id, source: source)
                } else if written.isNew {
                    context.writer.noteMissingFeatures()
                }
                if !parsed.tags.isEmpty {
                    try context.writer.tag(trackID: written.id, with: parsed.tags, source: tagSource)
                }
                if format == .exportify {
                    playlist.append(.init(trackID: written.id, addedAt: parsed.addedAt, addedBy: parsed.addedBy))
                    if isLikedSongs {
                        try context.writer.save(trackID: written.id, addedAt: parsed.addedAt, source: tagSource)
                    }
                }
            }
        }
        for (field, count) in invalidKeptAsMissing {
            context.invalidValueKeptAsMissing(field: field, count: count)
        }
        if namesMissingAsNA > 0 {
            context.notes.append(
                "\(namesMissingAsNA) rows have NA (R's missing value) as the track name; they were imported without a name"
            )
        }
        if format == .exportify {
            let stem = fileName.hasSuffix(".csv") ? String(fileName.dropLast(4)) : fileName
            try context.writer.writePlaylist(
                originKey: "exportify:" + fileName,
                name: stem.replacingOccurrences(of: "_", with: " "),
                source: format.source,
                entries: playlist
            )
        }
        return scale
    }

    /// One data row as the parsing thread hands it over: parsed, or the error that rejects it,
    /// with how far into the file the reader was. (Unchecked: each item is handed over once and
    /// never touched again by the thread that made it.)
    struct ParsedItem: @unchecked Sendable {
        var row: Result<ParsedRow, ImportError>
        var bytesRead: Int
    }

    /// Parses the rows after the header on a thread of its own, in batches, and passes each row
    /// to `body` on this thread, in file order; a syntax error that ends the file's reading is
    /// thrown after the rows before it.
    ///
    /// The importer (its reader and its counts) belongs to the parsing thread until it is done,
    /// and is handed back before this returns, also when `body` throws: the parser is stopped and
    /// waited for.
    private mutating func parsingAhead(
        roles: [Role],
        header: [String],
        scale: String,
        _ body: (ParsedItem) throws -> Void
    ) throws {
        let parser = RowParser(self)
        let channel = BatchChannel<ParsedItem>(capacity: 4)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            parser.run(into: channel, roles: roles, header: header, scale: scale)
            finished.signal()
        }
        thread.name = "vibes-analyze import parser"
        thread.start()
        defer {
            channel.cancel()
            finished.wait()
            self = parser.importer
        }
        while try channel.next({ batch in for item in batch { try body(item) } }) {}
        if let failure = parser.failure { throw failure }
    }

    /// The parsing side of ``parsingAhead(roles:header:scale:_:)``: touched by one thread at a
    /// time (the parser until it signals that it is done, then the importer's).
    private final class RowParser: @unchecked Sendable {
        var importer: TabularImporter
        /// The error that ended the reading (a CSV syntax error), after the rows before it.
        var failure: (any Error)?

        init(_ importer: TabularImporter) { self.importer = importer }

        func run(into channel: BatchChannel<ParsedItem>, roles: [Role], header: [String], scale: String) {
            var record = CSVReader.Record(line: 1, lineStart: 0)
            var batch: [ParsedItem] = []
            batch.reserveCapacity(Self.batchSize)
            do {
                while try importer.nextRecord(&record) {
                    let row: Result<ParsedRow, ImportError>
                    if record.count != header.count {
                        row = .failure(
                            importer.context.error(
                                line: record.line,
                                column: record.count > header.count
                                    ? importer.reader.column(record, header.count) : nil,
                                "expected \(header.count) fields as in the header, found \(record.count)"
                            )
                        )
                    } else {
                        row = Result { () throws(ImportError) in
                            try importer.parseRow(record, roles: roles, header: header, scale: scale)
                        }
                    }
                    batch.append(ParsedItem(row: row, bytesRead: importer.reader.fileOffset))
                    if batch.count == Self.batchSize {
                        guard channel.push(batch) else { return }
                        batch.removeAll(keepingCapacity: true)
                        // The rows the writer is done with are freed here, off its thread.
                        _ = channel.takeSpent()
                    }
                }
            } catch {
                failure = error
            }
            if !batch.isEmpty { _ = channel.push(batch) }
            channel.finish()
        }

        /// Rows per batch: enough that handing a batch over costs nothing per row.
        static let batchSize = 256
    }

    private mutating func nextRecord(_ record: inout CSVReader.Record) throws -> Bool {
        do {
            return try reader.next(into: &record)
        } catch let error as CSVSyntaxError {
            throw context.error(line: error.line, column: nil, error.message)
        }
    }

    /// Chooses the scale of 0…1 features: as given, or detected from the first 1,000 rows.
    private func chooseScale(featureColumns: [(Int, AudioFeature)]) throws -> String {
        if let given = context.options.scale {
            return given.rawValue + " (as given by --scale)"
        }
        var probe = reader
        var record = CSVReader.Record(line: 1, lineStart: 0)
        var maximum = 0.0
        var maximumFeature: AudioFeature?
        var rows = 0
        while rows < 1000, (try? probe.next(into: &record)) == true {
            rows += 1
            for (column, feature) in featureColumns where AudioFeature.unitIntervalFeatures.contains(feature) {
                guard column < record.count else { continue }
                if let value = probe.double(record, column), value > maximum {
                    maximum = value
                    maximumFeature = feature
                }
            }
        }
        if maximum > 1.5 && maximum <= 100, let maximumFeature {
            return
                "percent (detected: \(maximumFeature.rawValue) reaches \(formatted(maximum)) in the first \(rows) rows; 0–100 values divided by 100; pass --scale unit to keep them)"
        }
        return "unit"
    }

    private func formatted(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    struct ParsedRow {
        var track: Track
        /// The track's ``Features/Track/matchKey``, folded on the parsing thread.
        var matchKey = ""
        var features: AudioFeatures?
        /// The features' columns as the store keeps them, coded on the parsing thread.
        var coded: DecimalCode.Row?
        var tags: [(kind: String, value: String)] = []
        var addedAt: String?
        var addedBy: String?
        var hasNANames = false
    }

    private mutating func parseRow(
        _ row: CSVReader.Record,
        roles: [Role],
        header: [String],
        scale: String
    ) throws(ImportError) -> ParsedRow {
        var track = Track(spotifyID: nil, name: "", artists: [])
        var features = AudioFeatures()
        var parsed = ParsedRow(track: track)
        let isPercent = scale.hasPrefix("percent")
        func fail(_ index: Int, _ message: String) -> ImportError {
            context.error(
                line: reader.line(row, index),
                column: reader.column(row, index),
                field: header[index],
                message
            )
        }
        // A number outside its valid range rejects the file, or with --skip-invalid is kept as
        // missing (the rest of the row stays) and counted.
        func invalid(_ index: Int, _ message: String) throws(ImportError) {
            guard context.options.skipInvalid else { throw fail(index, message) }
            invalidKeptAsMissing[header[index], default: 0] += 1
        }
        func text(_ index: Int) -> String? {
            reader.isBlank(row, index) || reader.isNA(row, index) ? nil : reader.string(row, index)
        }
        for (index, role) in roles.enumerated() {
            switch role {
            case .ignored:
                continue
            case .spotifyID, .alternateID:
                // `id` repeats `track_id` in the 2024 Kaggle set, and is empty where `track_id` is not.
                guard let value = text(index), role == .spotifyID || track.spotifyID == nil else { continue }
                guard let id = SpotifyID(uri: value, category: "track") else {
                    throw fail(index, "expected a 22-character Spotify track ID, found \(ImportError.quoted(value))")
                }
                track.spotifyID = id
            case .uri:
                guard let value = text(index) else { continue }
                if value.hasPrefix("spotify:local:") {
                    track.isLocal = true
                    if let local = LocalTrackURI(value) {
                        if track.name.isEmpty { track.name = local.title }
                        if track.artists.isEmpty { track.artists = local.artists }
                    }
                } else if let id = SpotifyID(uri: value, category: "track") {
                    track.spotifyID = id
                } else {
                    throw fail(
                        index,
                        "expected a Spotify track URI (spotify:track:<22 characters>), found \(ImportError.quoted(value))"
                    )
                }
            case .name:
                if let value = text(index) {
                    track.name = value
                } else if reader.isNA(row, index) {
                    parsed.hasNANames = true
                }
            case .artists:
                if let value = text(index) { track.artists = TabularImporter.splitArtists(value) }
            case .album:
                track.album = text(index)
            case .albumID:
                track.albumID = text(index).flatMap { SpotifyID(uri: $0) }
            case .releaseDate:
                guard let value = text(index) else { continue }
                guard let date = ReleaseDate(value) else {
                    throw fail(
                        index,
                        "expected a release date as YYYY, YYYY-MM or YYYY-MM-DD, found \(ImportError.quoted(value))"
                    )
                }
                track.releaseDate = date
            case .durationMS, .durationSeconds:
                guard !reader.isBlank(row, index) else { continue }
                guard let value = reader.double(row, index) else {
                    throw fail(index, "expected a duration, found \(ImportError.quoted(reader.string(row, index)))")
                }
                let milliseconds = (role == .durationSeconds ? value * 1000 : value).rounded()
                guard milliseconds.isFinite, let valid = Int(exactly: milliseconds),
                    Track.validDurationMS.contains(valid)
                else {
                    let range = role == .durationSeconds ? "0 to 360000 seconds" : "0 to 360000000 ms"
                    try invalid(
                        index,
                        "expected a duration from \(range) (100 hours), found \(ImportError.quoted(reader.string(row, index)))"
                    )
                    continue
                }
                track.durationMS = valid
            case .popularity:
                guard !reader.isBlank(row, index) else { continue }
                guard let value = reader.double(row, index) else {
                    throw fail(index, "expected a popularity, found \(ImportError.quoted(reader.string(row, index)))")
                }
                guard value == value.rounded(), (0...100).contains(value) else {
                    try invalid(
                        index,
                        "expected a popularity from 0 to 100 (whole numbers), found \(ImportError.quoted(reader.string(row, index)))"
                    )
                    continue
                }
                track.popularity = Int(value)
            case .explicit:
                guard let value = text(index)?.lowercased() else { continue }
                switch value {
                case "true", "1", "yes": track.isExplicit = true
                case "false", "0", "no": track.isExplicit = false
                default: throw fail(index, "expected true or false, found \(ImportError.quoted(value))")
                }
            case .isrc:
                track.isrc = text(index)
            case .addedAt:
                parsed.addedAt = text(index)
            case .addedBy:
                parsed.addedBy = text(index)
            case .tag(let kind, let isList):
                guard let value = text(index) else { continue }
                if isList {
                    for item in value.split(separator: ",") {
                        parsed.tags.append((kind, String(item.trimmingWhitespace())))
                    }
                } else {
                    parsed.tags.append((kind, value))
                }
            case .feature(let feature):
                guard !reader.isBlank(row, index), !reader.isNA(row, index) else { continue }
                guard var value = reader.double(row, index), value.isFinite else {
                    throw fail(
                        index,
                        "expected a number for \(feature.rawValue) (\(feature.unit)), found \(ImportError.quoted(reader.string(row, index)))"
                    )
                }
                if feature.isDiscrete && value != value.rounded() {
                    throw fail(
                        index,
                        "expected a whole number for \(feature.rawValue), found \(ImportError.quoted(reader.string(row, index)))"
                    )
                }
                if isPercent && AudioFeature.unitIntervalFeatures.contains(feature) { value /= 100 }
                guard feature.validRange.contains(value) else {
                    try invalid(
                        index,
                        "expected \(feature.rawValue) from \(feature.validRangeDescription)"
                            + (isPercent && AudioFeature.unitIntervalFeatures.contains(feature)
                                ? " (after dividing by 100)" : "")
                            + ", found \(ImportError.quoted(reader.string(row, index)))"
                    )
                    continue
                }
                features[feature] = value
            }
        }
        if track.spotifyID == nil && track.name.isEmpty {
            throw context.error(line: row.line, "the row has neither a Spotify track ID nor a track name")
        }
        parsed.track = track
        parsed.matchKey = track.matchKey
        if !features.isEmpty {
            parsed.features = features
            parsed.coded = DecimalCode.Row(features)
        }
        return parsed
    }

    /// Column names for a message: the first ten, quoted and shortened to 40 characters, then how
    /// many more (a header of a million columns makes a one-line message, not megabytes).
    static func summarized(_ names: [String]) -> String {
        let shown = names.prefix(10).map { name in
            "\"" + (name.count > 40 ? String(name.prefix(39)) + "…" : name) + "\""
        }
        let rest = names.count - shown.count
        return shown.joined(separator: ", ") + (rest > 0 ? " and \(rest) more" : "")
    }

    /// Splits a list of artists: `;` (Exportify) or `, ` (Kaggle).
    ///
    /// Names that themselves hold ", " (such as "Tyler, The Creator") are split too in files that
    /// use ", " between artists; files that use ";" keep them whole.
    static func splitArtists(_ value: String) -> [String] {
        var hasSemicolon = false
        var hasCommaSpace = false
        var previous: UInt8 = 0
        for byte in value.utf8 {
            if byte == 0x3B { hasSemicolon = true }
            if previous == 0x2C && byte == 0x20 { hasCommaSpace = true }
            previous = byte
        }
        if !hasSemicolon && !hasCommaSpace {
            let trimmed = value.trimmingWhitespace()
            return trimmed.isEmpty ? [] : [String(trimmed)]
        }
        let separator = value.contains(";") ? ";" : ", "
        return value.split(separator: separator).map { String($0.trimmingWhitespace()) }.filter { !$0.isEmpty }
    }
}

extension CSVReader {
    /// Whether field `index` of `record` is `NA`, R's missing value (tidytuesday's CSVs are written by R).
    func isNA(_ record: Record, _ index: Int) -> Bool {
        record.ends[index] - record.starts[index] == 2 && bytes[record.starts[index]] == 0x4E
            && bytes[record.starts[index] + 1] == 0x41
    }

    /// Field `index` of `record` as a number, or `nil` when it is not one.
    func double(_ record: Record, _ index: Int) -> Double? {
        bytes.withUnsafeBufferPointer { buffer in
            NumberParsing.double(buffer, from: record.starts[index], to: record.ends[index])
        }
    }
}

/// The parts of a `spotify:local:artist:album:title:seconds` URI, URL-decoded.
struct LocalTrackURI {
    var artists: [String]
    var album: String
    var title: String
    var durationMS: Int?

    init?(_ uri: String) {
        let parts = uri.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 6, parts[0] == "spotify", parts[1] == "local" else { return nil }
        func decode(_ text: Substring) -> String {
            let spaced = text.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        let artist = decode(parts[2])
        artists = artist.isEmpty ? [] : [artist]
        album = decode(parts[3])
        title = decode(parts[4])
        // Seconds; a number beyond 100 hours (or beyond Int) is no duration.
        durationMS = Int(parts[5]).flatMap { seconds in
            let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
            return !overflow && Track.validDurationMS.contains(milliseconds) ? milliseconds : nil
        }
    }
}
