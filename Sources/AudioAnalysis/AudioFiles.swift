import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the audio files under the paths a user names.
public enum AudioFiles {
    /// The file name extensions taken for audio (lower-case): what FFmpeg decodes and music
    /// libraries hold.
    public static let extensions: Set<String> = [
        "mp3", "m4a", "m4b", "mp4", "aac", "alac", "flac", "wav", "wave", "aif", "aiff", "aifc", "ogg", "oga",
        "opus", "wma", "ape", "wv", "mpc", "dsf", "webm", "mka",
    ]

    /// The result of a search.
    public struct Listing: Hashable, Sendable {
        /// Audio files, in the order found: named files as given, folders' files sorted by path.
        public var files: [AudioFilePath]
        /// Paths that do not exist.
        public var missing: [AudioFilePath]
    }

    /// Lists the audio files among `paths`: a named file is taken whatever its extension and kind
    /// (``AudioFile`` refuses what is not a regular file, with a reason), and a folder is searched
    /// recursively for regular files with an audio ``extensions``, skipping hidden files and
    /// folders and not following links to folders. Names need not be valid UTF-8. Each file
    /// appears once, under its absolute path with `.` and `..` resolved.
    public static func find(in paths: [AudioFilePath]) -> Listing {
        var listing = Listing(files: [], missing: [])
        var seen = Set<AudioFilePath>()
        for path in paths {
            var status = stat()
            guard path.withCString({ stat($0, &status) }) == 0 else {
                listing.missing.append(path)
                continue
            }
            let absolute = standardized(path)
            guard status.st_mode & S_IFMT == S_IFDIR else {
                if seen.insert(absolute).inserted { listing.files.append(absolute) }
                continue
            }
            var found: [AudioFilePath] = []
            collect(in: absolute, into: &found)
            for file in found.sorted() where seen.insert(file).inserted {
                listing.files.append(file)
            }
        }
        return listing
    }

    /// Lists the audio files among `paths`, given as text, as the other `find(in:)` does.
    public static func find(in paths: [String]) -> Listing {
        find(in: paths.map(AudioFilePath.init))
    }

    /// Adds the audio files under `folder` to `found`, depth first.
    private static func collect(in folder: AudioFilePath, into found: inout [AudioFilePath]) {
        guard let stream = folder.withCString({ opendir($0) }) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            // Hidden files and folders, and `.` and `..`.
            guard let first = name.first, first != UInt8(ascii: ".") else { continue }
            let path = folder.appending(name)
            var type = Int32(entry.pointee.d_type)
            if type == Int32(DT_UNKNOWN) {
                var status = stat()
                guard path.withCString({ lstat($0, &status) }) == 0 else { continue }
                type = Self.directoryEntryType(of: status)
            }
            if type == Int32(DT_DIR) {
                collect(in: path, into: &found)
                continue
            }
            guard type == Int32(DT_REG) || type == Int32(DT_LNK), extensions.contains(path.pathExtension) else {
                continue
            }
            if type == Int32(DT_LNK) {
                // A link counts when it leads to a regular file; links to folders are not followed.
                var status = stat()
                guard path.withCString({ stat($0, &status) }) == 0, status.st_mode & S_IFMT == S_IFREG else {
                    continue
                }
            }
            found.append(path)
        }
    }

    private static func directoryEntryType(of status: stat) -> Int32 {
        switch status.st_mode & S_IFMT {
        case S_IFDIR: Int32(DT_DIR)
        case S_IFREG: Int32(DT_REG)
        case S_IFLNK: Int32(DT_LNK)
        default: Int32(DT_UNKNOWN)
        }
    }

    /// `path` made absolute (from the working folder), with `.`, `..` and repeated slashes
    /// resolved by name, as `URL.standardizedFileURL` does.
    static func standardized(_ path: AudioFilePath) -> AudioFilePath {
        let slash = UInt8(ascii: "/")
        var bytes = path.bytes
        if bytes.first != slash {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) } + [slash] + bytes
            }
        }
        var components: [ArraySlice<UInt8>] = []
        for component in bytes.split(separator: slash) {
            if component.elementsEqual(".".utf8) { continue }
            if component.elementsEqual("..".utf8) {
                _ = components.popLast()
                continue
            }
            components.append(component)
        }
        var result: [UInt8] = []
        for component in components {
            result.append(slash)
            result.append(contentsOf: component)
        }
        return AudioFilePath(bytes: result.isEmpty ? [slash] : result)
    }
}
