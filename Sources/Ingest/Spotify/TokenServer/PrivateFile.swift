import Foundation

/// Files that hold one secret line, readable by their owner only: the token server's key and the
/// app's client secret.
enum PrivateFile {
    /// Returns the one line of the file at `path`, without surrounding white space.
    ///
    /// Symbolic links are followed (a Kubernetes secret is one), and the mode of the file they lead
    /// to is checked.
    ///
    /// - Throws: ``TokenServerError/fileNotPrivate(path:mode:)`` when group or others have any
    ///   permission; ``TokenServerError/cannotReadFile(path:reason:)``;
    ///   ``TokenServerError/malformedFile(path:reason:)`` when it is empty or has several lines.
    static func readLine(atPath path: String) throws -> String {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: resolved)
        } catch {
            throw TokenServerError.cannotReadFile(path: path, reason: "no such file, or no permission to see it")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw TokenServerError.cannotReadFile(path: path, reason: "it is not a regular file")
        }
        if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            throw TokenServerError.fileNotPrivate(path: path, mode: mode)
        }
        guard let data = FileManager.default.contents(atPath: resolved) else {
            throw TokenServerError.cannotReadFile(path: path, reason: "no permission to read it")
        }
        guard data.count <= 4096, let text = String(data: data, encoding: .utf8) else {
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
