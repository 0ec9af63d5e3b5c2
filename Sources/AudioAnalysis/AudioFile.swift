import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file opened for reading, held open while it is fingerprinted and analysed.
///
/// Opening checks the kind of file first (`stat`), so a FIFO, a device such as `/dev/zero`, a
/// socket or a folder is refused before it is opened: opening a FIFO would wait for a writer, and
/// a device can be read forever. The file is then opened without blocking (`O_NONBLOCK`) and
/// checked again on the descriptor (`fstat`), so a file swapped for a FIFO between the two
/// checks is refused too, never waited for. Everything after reads this descriptor, not the path:
/// ``AudioAnalyzer/analyze(_:)`` and the caller's fingerprint (``withDescriptor(_:)``).
public final class AudioFile: Sendable {
    /// The path the file was opened by.
    public let path: AudioFilePath
    /// The size, in bytes.
    public let size: Int64
    /// The modification time, nanoseconds since 1970.
    public let modifiedNS: Int64
    /// The open descriptor, closed when the file is released.
    let descriptor: Int32

    /// Opens the regular file at `path` for reading.
    ///
    /// - Throws: ``AudioAnalysisError/notRegularFile(path:kind:)`` for a FIFO, device, socket or
    ///   folder, and ``AudioAnalysisError/cannotOpen(path:reason:)`` when the file is missing or
    ///   cannot be read.
    public init(opening path: AudioFilePath) throws(AudioAnalysisError) {
        self.path = path
        var named = stat()
        guard path.withCString({ stat($0, &named) }) == 0 else {
            throw .cannotOpen(path: path.description, reason: Self.errorText())
        }
        if let kind = Self.kind(of: named) { throw .notRegularFile(path: path.description, kind: kind) }
        let descriptor = path.withCString { open($0, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw .cannotOpen(path: path.description, reason: Self.errorText()) }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0 else {
            let reason = Self.errorText()
            close(descriptor)
            throw .cannotOpen(path: path.description, reason: reason)
        }
        if let kind = Self.kind(of: opened) {
            close(descriptor)
            throw .notRegularFile(path: path.description, kind: kind)
        }
        // Reads of a regular file never block, but a caller may pass the descriptor on.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        self.descriptor = descriptor
        size = Int64(opened.st_size)
        #if canImport(Darwin)
        modifiedNS = Int64(opened.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(opened.st_mtimespec.tv_nsec)
        #else
        modifiedNS = Int64(opened.st_mtim.tv_sec) * 1_000_000_000 + Int64(opened.st_mtim.tv_nsec)
        #endif
    }

    deinit { close(descriptor) }

    /// Calls `body` with the open descriptor, to read the file's bytes (with `pread`, which leaves
    /// the analysis's reads alone).
    ///
    /// Do not close the descriptor or let it escape `body`.
    public func withDescriptor<Result>(_ body: (Int32) throws -> Result) rethrows -> Result {
        try body(descriptor)
    }

    /// What `status` describes, in words, when it is not a regular file.
    private static func kind(of status: stat) -> String? {
        switch status.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a folder"
        default: "a special file"
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
