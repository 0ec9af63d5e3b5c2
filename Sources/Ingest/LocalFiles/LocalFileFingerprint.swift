import Crypto
import Foundation

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
}
