import Foundation
import ZIPFoundation

/// Writes zip archives for tests, hostile ones included: any entry path, deflated or stored,
/// symbolic links, and a forged uncompressed size.
public enum ZipFixture {
    /// One entry of an archive to write.
    public struct Entry: Sendable {
        public var path: String
        public var data: Data
        public var isDeflated: Bool
        public var isLink: Bool

        /// A file entry at `path` (any path, such as `../../escape.json` or `/etc/x`).
        public static func file(_ path: String, _ data: Data, deflated: Bool = true) -> Entry {
            Entry(path: path, data: data, isDeflated: deflated, isLink: false)
        }

        /// A file entry holding the bytes of `fixture` (a path under `Fixtures/`).
        public static func fixture(_ path: String, _ fixture: String) -> Entry {
            .file(path, Fixtures.data(fixture))
        }

        /// A symbolic link at `path` pointing at `target`.
        public static func link(_ path: String, to target: String) -> Entry {
            Entry(path: path, data: Data(target.utf8), isDeflated: false, isLink: true)
        }
    }

    /// Writes `entries` to a new zip at `path`.
    public static func write(_ entries: [Entry], to path: String) throws {
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for entry in entries {
            let data = entry.data
            try archive.addEntry(
                with: entry.path,
                type: entry.isLink ? .symlink : .file,
                uncompressedSize: Int64(data.count),
                compressionMethod: entry.isDeflated ? .deflate : .none,
                provider: { position, size in data.subdata(in: Int(position)..<Int(position) + size) }
            )
        }
    }

    /// Rewrites the uncompressed size the first entry declares (in its local header and in the
    /// central directory) to `size`, as a forged zip bomb does.
    public static func forgeUncompressedSize(of path: String, to size: UInt32) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func put(_ value: UInt32, at offset: Int) {
            for index in 0..<4 { bytes[offset + index] = UInt8((value >> (8 * UInt32(index))) & 0xFF) }
        }
        func find(_ signature: [UInt8]) -> Int? {
            (0...(bytes.count - signature.count)).first { Array(bytes[$0..<$0 + signature.count]) == signature }
        }
        if let local = find([0x50, 0x4B, 0x03, 0x04]) { put(size, at: local + 22) }
        if let central = find([0x50, 0x4B, 0x01, 0x02]) { put(size, at: central + 24) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
