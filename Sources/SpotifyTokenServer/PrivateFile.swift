import Foundation

/// Files that hold one secret line, readable by their owner only: the token server's key and the
/// app's client secret.
enum PrivateFile {
    /// The largest file read: a key is 64 characters and a client secret 32.
    static let maximumByteCount = 4_096

    /// Returns the one line of the file at `path`, without surrounding white space.
    ///
    /// Symbolic links are followed (a Kubernetes secret is one), and the mode of the file they lead
    /// to is checked. The file is opened once, then checked with `fstat` (a regular file, private,
    /// at most ``maximumByteCount`` bytes) before anything is read, and at most one byte more than
    /// that is ever read, so a huge file, a FIFO or a device costs nothing.
    ///
    /// - Throws: ``TokenServerError/fileNotPrivate(path:mode:)`` when group or others have any
    ///   permission; ``TokenServerError/cannotReadFile(path:reason:)``;
    ///   ``TokenServerError/malformedFile(path:reason:)`` when it is empty, has several lines or is
    ///   larger than ``maximumByteCount``.
    static func readLine(atPath path: String) throws -> String {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it changes nothing for a regular file.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            if code == EACCES { throw TokenServerError.cannotReadFile(path: path, reason: "no permission to read it") }
            throw TokenServerError.cannotReadFile(path: path, reason: "no such file, or no permission to see it")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw TokenServerError.cannotReadFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw TokenServerError.cannotReadFile(path: path, reason: "it is not a regular file")
        }
        let mode = Int(status.st_mode & 0o7777)
        if mode & 0o077 != 0 {
            throw TokenServerError.fileNotPrivate(path: path, mode: mode)
        }
        let tooLarge = TokenServerError.malformedFile(
            path: path,
            reason: "it is not one short line of text (it is larger than \(maximumByteCount) bytes)"
        )
        guard status.st_size <= maximumByteCount else { throw tooLarge }
        // The size may have changed since `fstat`: read one byte past the limit to know.
        var bytes = [UInt8](repeating: 0, count: maximumByteCount + 1)
        var count = 0
        while count < bytes.count {
            let received = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if received == 0 { break }
            guard received > 0 else {
                if errno == EINTR { continue }
                throw TokenServerError.cannotReadFile(path: path, reason: String(cString: strerror(errno)))
            }
            count += received
        }
        guard count <= maximumByteCount else { throw tooLarge }
        guard let text = String(validating: bytes[..<count], as: UTF8.self) else {
            throw TokenServerError.malformedFile(path: path, reason: "it is not one short line of text")
        }
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !line.isEmpty else {
            throw TokenServerError.malformedFile(path: path, reason: "it is empty")
        }
        guard !line.contains(where: \.isNewline) else {
            throw TokenServerError.malformedFile(path: path, reason: "it has more than one line")
        }
        return line
    }

    /// Creates the file at `path` with mode 0600 and writes `line` and a line break to it.
    ///
    /// - Throws: ``TokenServerError/fileExists(path:)`` when anything is at `path`, a link
    ///   included; ``TokenServerError/cannotWriteFile(path:reason:)``.
    static func create(atPath path: String, line: String) throws {
        // O_EXCL and O_NOFOLLOW: never overwrite a key, nor write through a link someone else put there.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw TokenServerError.fileExists(path: path) }
            throw TokenServerError.cannotWriteFile(path: path, reason: String(cString: strerror(code)))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            // The umask can only remove bits, but say 0600 explicitly all the same.
            guard fchmod(descriptor, 0o600) == 0 else {
                throw TokenServerError.cannotWriteFile(path: path, reason: String(cString: strerror(errno)))
            }
            try handle.write(contentsOf: Data((line + "\n").utf8))
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            unlink(path)
            if let error = error as? TokenServerError { throw error }
            throw TokenServerError.cannotWriteFile(path: path, reason: "\(error.localizedDescription)")
        }
    }
}
