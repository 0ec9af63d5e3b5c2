import Foundation
import VibesHashing

/// What identifies a local file's state: its path, size and modification time, which are cheap to
/// read, and the SHA-256 of its bytes, which finds the same content under a new name.
public struct LocalFileFingerprint: Hashable, Sendable {
    /// The absolute, standardised path.
    public var path: String
    public var size: Int64
    /// Modification time, nanoseconds since 1970.
    public var modifiedNS: Int64

    /// Reads the size and modification time of the file at `path`.
    ///
    /// - Throws: The file system's error when the file cannot be read.
    public init(path: String) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        self.path = path
        size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let date = attributes[.modificationDate] as? Date ?? .distantPast
        modifiedNS = Int64((date.timeIntervalSince1970 * 1e9).rounded())
    }

    public init(path: String, size: Int64, modifiedNS: Int64) {
        self.path = path
        self.size = size
        self.modifiedNS = modifiedNS
    }

    /// The stable identifier of a file's recording when no Spotify ID is known: `local:` and the
    /// first 22 hex digits of its content hash.
    public static func localTrackID(contentHash: String) -> String { "local:" + contentHash.prefix(22) }

    /// The hex SHA-256 of the file's bytes, read a megabyte at a time.
    ///
    /// - Throws: The file system's error when the file cannot be read.
    public func contentHash() throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The hex SHA-256 of the bytes of the file open as `descriptor`, read a megabyte at a time
    /// with `pread` from the start, so the descriptor's offset is left as it was.
    ///
    /// Hash a regular file: a FIFO or a device may never end.
    ///
    /// - Throws: `POSIXError` when a read fails.
    public static func contentHash(readingFrom descriptor: Int32) throws -> String {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            hasher.update(data: buffer[0..<count])
            offset += off_t(count)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
