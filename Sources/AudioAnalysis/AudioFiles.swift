import Foundation

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
        public var files: [URL]
        /// Paths that do not exist.
        public var missing: [String]
    }

    /// Lists the audio files among `paths`: a named file is taken whatever its extension, and a
    /// folder is searched recursively for files with an audio ``extensions``, skipping hidden
    /// files and folders. Each file appears once.
    public static func find(in paths: [String]) -> Listing {
        var listing = Listing(files: [], missing: [])
        var seen = Set<String>()
        let manager = FileManager.default
        for path in paths {
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isFolder) else {
                listing.missing.append(path)
                continue
            }
            let url = URL(fileURLWithPath: path).standardizedFileURL
            guard isFolder.boolValue else {
                if seen.insert(url.path).inserted { listing.files.append(url) }
                continue
            }
            var found: [URL] = []
            let enumerator = manager.enumerator(
                at: url,
                includingPropertiesForKeys: [.isRegularFileKey],
                options: [.skipsHiddenFiles]
            )
            while let file = enumerator?.nextObject() as? URL {
                guard extensions.contains(file.pathExtension.lowercased()),
                    (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
                else { continue }
                found.append(file.standardizedFileURL)
            }
            for file in found.sorted(by: { $0.path < $1.path }) where seen.insert(file.path).inserted {
                listing.files.append(file)
            }
        }
        return listing
    }
}
