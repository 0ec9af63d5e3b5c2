import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an `--out` path writes, and the writing itself.
///
/// A regular file (or a new path) is replaced atomically: the text goes to a temporary file in the
/// same folder, which is then renamed over the target, so a reader never sees half a report and a
/// failed write leaves the old file as it was. A symbolic link to a regular file replaces the file
/// it points to and keeps the link. Anything else is not a file to replace:
///
/// - a character device (`/dev/null`, a terminal), a FIFO, a socket's or pipe's
///   `/dev/fd/N`, `/proc/self/fd/N`, `/dev/stdout` and `/dev/stderr` are written in place, as a
///   shell's `>` would (an open descriptor of this process is written through that descriptor);
/// - a folder, or a link to one, and a block device (a disk) are refused as a command-line mistake
///   (exit 64) before any work.
package enum OutputFile {
    /// How a path is written.
    package enum Destination: Equatable, Sendable {
        /// Replaced atomically: the path itself, or what its symbolic links lead to.
        case replace(path: String)
        /// Written in place through an open descriptor of this process.
        case descriptor(Int32)
        /// Opened and written in place (a character device or a FIFO).
        case stream(path: String)
    }

    /// Says where `path` would be written, or refuses it.
    ///
    /// - Throws: `ValidationError` (exit 64) for a folder, a link to one, a block device or a
    ///   socket; ``CommandFailure`` when the folder a new file would go in does not exist.
    package static func destination(of path: String) throws -> Destination {
        if let descriptor = openDescriptor(named: path) { return .descriptor(descriptor) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            // Nothing there (or a dangling link): a new file, in a folder that must exist.
            let target = resolvedLinkTarget(of: path) ?? path
            try checkFolder(of: target, named: path)
            return .replace(path: target)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return .replace(path: realPath(of: path) ?? path)
        case S_IFCHR, S_IFIFO:
            return .stream(path: path)
        case S_IFDIR:
            throw ValidationError("--out \(path) is a folder; give a file name such as \(folderExample(path)).")
        case S_IFBLK:
            throw ValidationError("--out \(path) is a block device (a disk); give a file name.")
        default:
            throw ValidationError("--out \(path) is not a file, a terminal or a pipe; give a file name.")
        }
    }

    /// Writes `text` to `path` as ``destination(of:)`` says.
    ///
    /// - Throws: What ``destination(of:)`` throws; ``CommandFailure`` naming the path and the cause
    ///   (a full disk is called a full disk) when the write fails, with nothing replaced.
    package static func write(_ text: String, to path: String) throws {
        try write(Data(text.utf8), to: path)
    }

    /// Writes `data` to `path` as ``destination(of:)`` says.
    package static func write(_ data: Data, to path: String) throws {
        switch try destination(of: path) {
        case .replace(let target):
            try replace(target, with: data, named: path)
        case .descriptor(let descriptor):
            try writeAll(data, to: descriptor, named: path)
        case .stream(let target):
            let descriptor = open(target, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure(path, errno) }
            defer { close(descriptor) }
            try writeAll(data, to: descriptor, named: path)
        }
    }

    // MARK: - Replacing a regular file

    private static func replace(_ target: String, with data: Data, named path: String) throws {
        let folder = (target as NSString).deletingLastPathComponent
        let base = (target as NSString).lastPathComponent
        var template = Array(((folder.isEmpty ? "." : folder) + "/.\(base).vibes-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw failure(path, errno) }
        let temporary = String(cString: template)
        var keep = false
        defer { if !keep { unlink(temporary) } }
        do {
            // The permissions of the file it replaces, or the usual ones of a new file.
            var existing = stat()
            let mode = stat(target, &existing) == 0 ? existing.st_mode & 0o7777 : 0o666 & ~currentUmask()
            fchmod(descriptor, mode)
            try writeAll(data, to: descriptor, named: path)
            guard fsync(descriptor) == 0 else { throw failure(path, errno) }
        } catch {
            close(descriptor)
            throw error
        }
        close(descriptor)
        guard rename(temporary, target) == 0 else { throw failure(path, errno) }
        keep = true
    }

    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }

    // MARK: - Writing in place

    private static func writeAll(_ data: Data, to descriptor: Int32, named path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure(path, errno)
                }
                offset += written
            }
        }
    }

    /// The descriptor `path` names when it is one of this process's open descriptors:
    /// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` or `/proc/<this pid>/fd/N`.
    static func openDescriptor(named path: String) -> Int32? {
        let number: Int32?
        switch path {
        case "/dev/stdout": number = 1
        case "/dev/stderr": number = 2
        default:
            let prefixes = ["/dev/fd/", "/proc/self/fd/", "/proc/\(getpid())/fd/"]
            number =
                prefixes.lazy.compactMap { prefix in
                    path.hasPrefix(prefix) ? Int32(path.dropFirst(prefix.count)) : nil
                }.first
        }
        guard let number, number >= 0, fcntl(number, F_GETFD) != -1 else { return nil }
        // Only a descriptor open for writing: one open for reading is written by opening its path.
        let flags = fcntl(number, F_GETFL)
        guard flags != -1, flags & O_ACCMODE != O_RDONLY else { return nil }
        return number
    }

    // MARK: - Paths

    private static func realPath(of path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Where a symbolic link at `path` points, made absolute, or `nil` when `path` is no link.
    private static func resolvedLinkTarget(of path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
        else { return nil }
        if target.hasPrefix("/") { return target }
        return ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(target)
    }

    private static func checkFolder(of target: String, named path: String) throws {
        let folder = (target as NSString).deletingLastPathComponent
        var info = stat()
        guard folder.isEmpty || (stat(folder, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR) else {
            throw CommandFailure("The folder \(folder) of --out \(path) does not exist; nothing was written.")
        }
    }

    private static func folderExample(_ path: String) -> String {
        (path.hasSuffix("/") ? path : path + "/") + "report.html"
    }

    private static func failure(_ path: String, _ code: Int32) -> CommandFailure {
        let reason: String
        switch code {
        case ENOSPC, EDQUOT: reason = "the disk is full"
        case EACCES, EPERM: reason = "permission denied; check the folder's permissions"
        case EROFS: reason = "the file system is read-only"
        case EPIPE: reason = "the reader closed the pipe"
        default: reason = String(cString: strerror(code))
        }
        return CommandFailure("Cannot write --out \(path): \(reason). Nothing was replaced.")
    }
}
