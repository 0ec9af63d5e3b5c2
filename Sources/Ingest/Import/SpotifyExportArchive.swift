import Foundation
import ZIPFoundation

/// Spotify's data export as it comes: `my_spotify_data.zip` (account data or extended streaming
/// history), or a folder holding its files, or a folder of Exportify CSVs.
///
/// Opening one lists the files vibes-analyze knows inside, in the order they are best imported
/// (playlists and CSVs with Spotify IDs first, so that plays link to their tracks), and the files
/// it skips, each with the reason. A zip is never unpacked in place: each file it imports is copied
/// into a private temporary folder under a name of its own (its number and the last part of its
/// name), so no entry can write outside that folder whatever its path says. Entries are counted and
/// measured before anything is copied, and the copy stops at the size the entry declared:
///
/// - an archive with more than ``Limits/maximumEntries`` entries is refused whole;
/// - a file larger than ``Limits/maximumFileBytes`` or than the space left in
///   ``Limits/maximumTotalBytes`` is skipped;
/// - a file that unpacks to more than ``Limits/maximumRatio`` times its compressed size (a zip
///   bomb, once past ``Limits/ratioCheckedAbove``) is skipped;
/// - links, nested archives, folders and files in `__MACOSX` are skipped.
///
/// ``LibraryStore/importSpotifyExport(at:options:limits:)`` opens an export and imports its files.
public struct SpotifyExportArchive: Sendable {
    /// The bounds a zip must keep to.
    public struct Limits: Sendable, Hashable {
        /// The most entries (files and folders) an archive may hold.
        public var maximumEntries = 20_000
        /// The largest file imported from an archive: larger than Spotify's biggest history files.
        public var maximumFileBytes: UInt64 = 1 << 30
        /// The most bytes unpacked from one archive.
        public var maximumTotalBytes: UInt64 = 4 << 30
        /// The largest ratio of unpacked to compressed size (JSON compresses about 10 to 20 times).
        public var maximumRatio: UInt64 = 200
        /// Files smaller than this are not checked for their ratio.
        public var ratioCheckedAbove: UInt64 = 1 << 20
        /// How deep a folder is searched.
        public var maximumDepth = 8

        public init() {}
    }

    /// A file of the export to import.
    public struct Member: Sendable, Hashable {
        /// Its path inside the archive or folder, for messages.
        public var name: String
        /// Where it can be read: a temporary copy for a zip, the file itself for a folder.
        public var path: String
    }

    /// A file of the export that is not imported, and why.
    public struct Skipped: Sendable, Hashable, Codable {
        public var name: String
        public var reason: String
    }

    /// The archive or folder, as the user named it.
    public var source: String
    /// The files to import, in import order.
    public var members: [Member]
    /// The files left out, with the reason.
    public var skipped: [Skipped]
    /// The temporary folder a zip's files were copied into, removed by ``remove()``.
    let temporaryFolder: String?

    /// Whether `path` is a folder or a zip archive (by its first bytes), which ``open(_:limits:)``
    /// reads as an export.
    public static func isExport(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return false }
        if isFolder.boolValue { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        return magic == Data([0x50, 0x4B, 0x03, 0x04]) || magic == Data([0x50, 0x4B, 0x05, 0x06])
    }

    /// Lists a folder's files, or copies a zip's known files into a temporary folder.
    ///
    /// - Throws: ``ImportError`` for an archive that cannot be read, holds too many entries, or
    ///   holds nothing vibes-analyze imports.
    public static func open(_ path: String, limits: Limits = Limits()) throws -> SpotifyExportArchive {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw ImportError(file: path, message: "no such file")
        }
        var export =
            isFolder.boolValue ? try openFolder(path, limits: limits) : try openZip(path, limits: limits)
        export.members.sort { ($0.priority, $0.name) < ($1.priority, $1.name) }
        if export.members.isEmpty {
            export.remove()
            let seen = export.skipped.prefix(5).map(\.name).joined(separator: ", ")
            throw ImportError(
                file: path,
                message:
                    "holds no file vibes-analyze imports (expected StreamingHistory*.json, Streaming_History_Audio_*.json, "
                    + "endsong_*.json, YourLibrary.json, Playlist*.json or Exportify CSVs)"
                    + (seen.isEmpty ? "" : "; found \(seen)\(export.skipped.count > 5 ? ", …" : "")")
            )
        }
        return export
    }

    /// Removes the temporary copies of a zip's files (a folder's files are left alone).
    public func remove() {
        if let temporaryFolder { try? FileManager.default.removeItem(atPath: temporaryFolder) }
    }

    // MARK: - What is known

    /// What a file is, from its name: imported (with its kind) or skipped (with the reason).
    enum Verdict: Equatable {
        case known(ImportFormat?)
        case skipped(String)
        /// Not worth a note: folders, macOS resource forks, `.DS_Store`.
        case ignored
    }

    /// Classifies a file by its name.
    static func verdict(for name: String) -> Verdict {
        let components = name.split(separator: "/")
        let base = String(components.last ?? "")
        if base.isEmpty || components.contains("__MACOSX") || base.hasPrefix("._") || base == ".DS_Store" {
            return .ignored
        }
        let lower = base.lowercased()
        func matches(_ prefix: String, _ suffix: String) -> Bool {
            lower.hasPrefix(prefix.lowercased()) && lower.hasSuffix(suffix)
        }
        if matches("StreamingHistory_podcast", ".json") {
            return .skipped("podcast listening, which vibes-analyze does not import")
        }
        if matches("Streaming_History_Video", ".json") {
            return .skipped("video listening, which vibes-analyze does not import")
        }
        if matches("StreamingHistory", ".json") { return .known(.streamingHistory) }
        if matches("Streaming_History_Audio", ".json") || matches("endsong", ".json") {
            return .known(.extendedHistory)
        }
        if lower == "yourlibrary.json" { return .known(.yourLibrary) }
        if matches("Playlist", ".json") { return .known(.accountPlaylists) }
        if lower.hasSuffix(".csv") { return .known(nil) }  // Exportify or a feature CSV, by its header
        if lower.hasSuffix(".zip") {
            return .skipped("an archive inside the archive; unpack it and import it on its own")
        }
        if lower.hasSuffix(".json") { return .skipped("account data vibes-analyze does not import") }
        return .skipped("not a file vibes-analyze imports")
    }

    // MARK: - Folders

    private static func openFolder(_ path: String, limits: Limits) throws -> SpotifyExportArchive {
        var members: [Member] = []
        var skipped: [Skipped] = []
        let root = URL(fileURLWithPath: path)
        let keys: [URLResourceKey] = [.isRegularFileKey, .isSymbolicLinkKey, .isDirectoryKey]
        guard
            let walker = FileManager.default.enumerator(
                at: root,
                includingPropertiesForKeys: keys,
                options: [.skipsHiddenFiles]
            )
        else { throw ImportError(file: path, message: "cannot be read (check its permissions)") }
        var seen = 0
        let rootDepth = root.standardizedFileURL.pathComponents.count
        for case let url as URL in walker {
            seen += 1
            guard seen <= limits.maximumEntries else {
                throw ImportError(
                    file: path,
                    message: "holds more than \(limits.maximumEntries) files; name the files to import instead"
                )
            }
            let values = try? url.resourceValues(forKeys: Set(keys))
            let depth = url.standardizedFileURL.pathComponents.count - rootDepth
            if values?.isDirectory == true {
                if depth >= limits.maximumDepth { walker.skipDescendants() }
                continue
            }
            let name = url.standardizedFileURL.pathComponents.dropFirst(rootDepth).joined(separator: "/")
            if values?.isSymbolicLink == true {
                skipped.append(Skipped(name: name, reason: "a link, which is not followed"))
                continue
            }
            guard values?.isRegularFile == true else { continue }
            switch verdict(for: name) {
            case .ignored: continue
            case .skipped(let reason): skipped.append(Skipped(name: name, reason: reason))
            case .known(let format):
                if format == nil, let reason = unknownCSVReason(url.path) {
                    skipped.append(Skipped(name: name, reason: reason))
                } else {
                    members.append(Member(name: name, path: url.path))
                }
            }
        }
        return SpotifyExportArchive(source: path, members: members, skipped: skipped, temporaryFolder: nil)
    }

    // MARK: - Zip archives

    private static func openZip(_ path: String, limits: Limits) throws -> SpotifyExportArchive {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw ImportError(file: path, message: "is not a zip archive that can be read (\(error))")
        }
        // The central directory is read whole before anything is copied: its count and sizes.
        var entries: [Entry] = []
        for entry in archive {
            entries.append(entry)
            guard entries.count <= limits.maximumEntries else {
                throw ImportError(
                    file: path,
                    message: "holds more than \(limits.maximumEntries) entries; refused as a possible zip bomb"
                )
            }
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("vibes-export-" + UUID().uuidString).path
        try FileManager.default.createDirectory(
            atPath: folder,
            withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700]
        )
        var export = SpotifyExportArchive(source: path, members: [], skipped: [], temporaryFolder: folder)
        var total: UInt64 = 0
        for (index, entry) in entries.enumerated() {
            let name = entry.path
            guard entry.type == .file else {
                if entry.type == .symlink {
                    export.skipped.append(Skipped(name: name, reason: "a link, which is not followed"))
                }
                continue
            }
            let format: ImportFormat?
            switch verdict(for: name) {
            case .ignored: continue
            case .skipped(let reason):
                export.skipped.append(Skipped(name: name, reason: reason))
                continue
            case .known(let known): format = known
            }
            let size = entry.uncompressedSize
            if size > limits.maximumFileBytes {
                export.skipped.append(
                    Skipped(name: name, reason: "unpacks to \(size) bytes, over the \(limits.maximumFileBytes) allowed")
                )
                continue
            }
            if size > limits.ratioCheckedAbove, size / max(entry.compressedSize, 1) > limits.maximumRatio {
                export.skipped.append(
                    Skipped(
                        name: name,
                        reason:
                            "unpacks to \(size / max(entry.compressedSize, 1)) times its packed size, refused as a possible zip bomb"
                    )
                )
                continue
            }
            guard total + size <= limits.maximumTotalBytes else {
                export.skipped.append(
                    Skipped(name: name, reason: "the archive unpacks to more than \(limits.maximumTotalBytes) bytes")
                )
                continue
            }
            // A name of its own: the entry's number and the last part of its path, cleaned.
            let target = folder + "/" + String(format: "%05d-", index) + safeFileName(name)
            if let reason = copy(entry, of: archive, to: target, declared: size) {
                export.skipped.append(Skipped(name: name, reason: reason))
                continue
            }
            total += size
            if format == nil, let reason = unknownCSVReason(target) {
                try? FileManager.default.removeItem(atPath: target)
                export.skipped.append(Skipped(name: name, reason: reason))
                continue
            }
            export.members.append(Member(name: name, path: target))
        }
        return export
    }

    /// Copies one entry to `target`, never past the size it declared; returns why it failed.
    private static func copy(_ entry: Entry, of archive: Archive, to target: String, declared: UInt64) -> String? {
        guard FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: target)
        else { return "could not be copied to a temporary folder" }
        defer { try? handle.close() }
        struct Overrun: Error {}
        var written: UInt64 = 0
        do {
            _ = try archive.extract(entry) { chunk in
                written += UInt64(chunk.count)
                // More than the entry declared: a forged header; stop before writing it.
                guard written <= declared else { throw Overrun() }
                try handle.write(contentsOf: chunk)
            }
        } catch is Overrun {
            try? FileManager.default.removeItem(atPath: target)
            return "unpacks to more than the \(declared) bytes it declares, refused as a possible zip bomb"
        } catch {
            try? FileManager.default.removeItem(atPath: target)
            return "could not be unpacked (\(error))"
        }
        return nil
    }

    /// The last part of an entry's path with only safe characters: no separators, no leading dot.
    static func safeFileName(_ name: String) -> String {
        let base = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? "file"
        let cleaned = String(
            base.unicodeScalars.map { scalar -> Character in
                let c = Character(scalar)
                return c.isLetter || c.isNumber || c == "." || c == "_" || c == "-" ? c : "_"
            }
        )
        let trimmed = cleaned.drop { $0 == "." }
        return trimmed.isEmpty ? "file" : String(trimmed.prefix(120))
    }

    /// The format of a CSV header line, or `nil` when it is neither Exportify's nor a feature
    /// table's.
    static func detectCSVFormat(bytes: [UInt8]) throws -> ImportFormat? {
        var reader = CSVReader(bytes: bytes)
        var record = CSVReader.Record(line: 1, lineStart: 0)
        guard (try? reader.next(into: &record)) == true else { return nil }
        let header = (0..<record.count).map { reader.string(record, $0) }
        if TabularImporter.isExportifyHeader(header) { return .exportify }
        if TabularImporter.featureColumnCount(header) >= 3 { return .featuresCSV }
        return nil
    }

    /// Why a CSV is skipped, or `nil` when its header is one `import` reads.
    static func unknownCSVReason(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "cannot be read" }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 1 << 16)) ?? Data()
        // The header line alone: a cut-off row after it would only confuse the detection.
        var line = head.prefix { $0 != 0x0A && $0 != 0x0D }
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        guard (try? detectCSVFormat(bytes: Array(line))) != nil else {
            return "a CSV whose header is neither an Exportify export's nor an audio-feature table's"
        }
        return nil
    }
}

extension SpotifyExportArchive.Member {
    /// Import order: CSVs (with Spotify IDs and features) and playlists first, then the library,
    /// then plays, so that plays link to tracks already known.
    var priority: Int {
        switch SpotifyExportArchive.verdict(for: name) {
        case .known(nil): 0
        case .known(.accountPlaylists): 1
        case .known(.yourLibrary): 2
        case .known(.extendedHistory): 3
        default: 4
        }
    }
}

/// What importing an export did: one summary per file imported, the files skipped, and the files
/// that failed (each file is imported in its own transaction: one failure leaves the others).
public struct SpotifyExportImport: Sendable {
    public var source: String
    public var files: [ImportSummary] = []
    public var skipped: [SpotifyExportArchive.Skipped] = []
    /// The files that failed: the name inside the export, and the error naming
    /// `ARCHIVE/PATH-INSIDE`.
    public var failures: [(name: String, error: String)] = []

    /// One line per skipped file.
    public var notes: [String] {
        skipped.map { "\(source): skipped \($0.name): \($0.reason)" }
    }
}
