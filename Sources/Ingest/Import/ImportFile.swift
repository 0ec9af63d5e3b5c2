import Foundation
import VibesHashing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `read(2)`, by a name the methods called `read` do not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// A file being imported, open for reading at any offset, closed when the last reference goes.
///
/// A tabular import reads it twice in chunks of ``ImportOptions/chunkSize`` and never holds the
/// whole file: once for its SHA-256 and encoding (``scan(chunkSize:)``), and once to parse and
/// write it (``TextStream``). Reads go through `pread(2)`, so any number of streams can read one
/// file without sharing a position.
final class ImportFile {
    /// The path as the user named it (errors repeat it).
    let path: String
    /// The file's size in bytes when it was opened.
    let size: Int
    private let descriptor: Int32

    /// Opens `path` for reading.
    ///
    /// - Throws: ``ImportError`` saying that there is no such file, that it is a folder, or that it
    ///   cannot be read.
    init(path: String) throws {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw ImportError(
                file: path,
                message: code == ENOENT || code == ENOTDIR ? "no such file" : "cannot be read (check its permissions)"
            )
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            throw ImportError(file: path, message: "cannot be read (check its permissions)")
        }
        if status.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            throw ImportError(file: path, message: "is a folder; name the files inside it")
        }
        guard status.st_mode & S_IFMT != S_IFREG else {
            self.descriptor = descriptor
            size = Int(status.st_size)
            return
        }
        // A pipe or a device (`import /dev/stdin`) cannot be read twice or at an offset: it is
        // copied once, in chunks, into an unlinked temporary file that is read instead.
        let spooled = try Self.spool(descriptor, path: path)
        close(descriptor)
        self.descriptor = spooled.descriptor
        size = spooled.size
    }

    /// Copies everything `source` yields into a new unlinked temporary file.
    static func spool(_ source: Int32, path: String) throws -> (descriptor: Int32, size: Int) {
        // `$TMPDIR`, else the system's.
        let folder = FileManager.default.temporaryDirectory.path
        var template = Array((folder + "/vibes-import-XXXXXX").utf8CString)
        let target = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard target >= 0 else {
            throw ImportError(file: path, message: "cannot be copied to a temporary file in \(folder) to be read")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var size = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                close(target)
                throw ImportError(file: path, message: "cannot be read (\(String(cString: strerror(errno))))")
            }
            if count == 0 { break }
            var written = 0
            while written < count {
                let result = chunk.withUnsafeBytes { write(target, $0.baseAddress! + written, count - written) }
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    close(target)
                    throw ImportError(
                        file: path,
                        message: "cannot be copied to a temporary file in \(folder) (disk full?)"
                    )
                }
                written += result
            }
            size += count
        }
        return (target, size)
    }

    deinit {
        close(descriptor)
    }

    /// Reads up to `count` bytes at `offset` into the end of `buffer`; returns how many were read,
    /// 0 at the end of the file.
    func read(at offset: Int, count: Int, appendingTo buffer: inout [UInt8]) throws -> Int {
        // Into scratch memory, then one copy of what came: growing the array by `count` zeros
        // first would touch every byte of the chunk even at the end of a small file, one element
        // at a time in an unoptimised build.
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
        defer { scratch.deallocate() }
        var read = 0
        while read < count {
            let result = pread(descriptor, scratch + read, count - read, off_t(offset + read))
            if result < 0 {
                if errno == EINTR { continue }
                throw ImportError(file: path, message: "cannot be read (\(String(cString: strerror(errno))))")
            }
            if result == 0 { break }
            read += result
        }
        buffer.append(contentsOf: UnsafeBufferPointer(start: scratch, count: read))
        return read
    }

    /// Reads the whole file (JSON imports, which are small, parse it at once).
    func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        while try read(at: bytes.count, count: max(size - bytes.count, 1 << 16), appendingTo: &bytes) > 0 {}
        return bytes
    }

    /// What the first pass over a file found.
    struct Scan {
        /// The SHA-256 of the content, in lower-case hex.
        var sha256: String
        /// The encoding, or where the file cannot be read as text.
        var encoding: Result<TextDecoding.Encoding, TextDecoding.Problem>
        /// The size read.
        var size: Int
    }

    /// Reads the file once in chunks for its SHA-256 and encoding.
    ///
    /// Measured on the 243 MB, million-row CSV: about 0.35 s, most of it the hash.
    func scan(chunkSize: Int) throws -> Scan {
        var hasher = SHA256()
        var scanner = TextDecoding.Scanner()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(chunkSize + 4)
        var offset = 0
        while true {
            let kept = buffer.count
            let read = try read(at: offset, count: chunkSize, appendingTo: &buffer)
            offset += read
            buffer.withUnsafeBufferPointer { all in
                hasher.update(bufferPointer: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: all[kept...])))
            }
            let consumed = buffer.withUnsafeBufferPointer { scanner.scan($0, isLast: read == 0) }
            buffer.removeFirst(consumed)
            if read == 0 { break }
        }
        let encoding = Result { () throws(TextDecoding.Problem) in try scanner.encoding() }
        return Scan(sha256: Self.hex(hasher.finalize()), encoding: encoding, size: offset)
    }

    /// The failure at `problem`'s place, reading the file up to it again to count its lines.
    func failure(at problem: TextDecoding.Problem) throws -> TextDecoding.Failure {
        var prefix: [UInt8] = []
        while prefix.count < problem.offset,
            try read(at: prefix.count, count: min(problem.offset - prefix.count, 1 << 20), appendingTo: &prefix) > 0
        {}
        return problem.failure(in: prefix)
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The text of an ``ImportFile`` as UTF-8, read chunk by chunk: the byte-order mark dropped and
/// Windows-1252 transcoded, the raw bytes hashed on the way.
///
/// A value: a copy reads on from the same place without moving the original (the scale probe
/// reads ahead this way).
struct TextStream {
    let file: ImportFile
    let encoding: TextDecoding.Encoding
    let chunkSize: Int
    /// The file offset of the next chunk.
    private(set) var fileOffset: Int
    private(set) var isAtEnd = false
    private var hasher = SHA256()
    /// A chunk's raw bytes, kept between reads (only for Windows-1252).
    private var raw: [UInt8] = []

    init(file: ImportFile, encoding: TextDecoding.Encoding, chunkSize: Int) {
        precondition(chunkSize >= 4, "a chunk must hold the longest UTF-8 sequence")
        self.file = file
        self.encoding = encoding
        self.chunkSize = chunkSize
        fileOffset = 0
    }

    /// Appends the next chunk's text to `buffer`; returns `false` (and appends nothing) at the end.
    mutating func append(to buffer: inout [UInt8]) throws -> Bool {
        guard !isAtEnd else { return false }
        let start = buffer.count
        let read: Int
        if encoding == .windows1252 {
            raw.removeAll(keepingCapacity: true)
            read = try file.read(at: fileOffset, count: chunkSize, appendingTo: &raw)
            raw.withUnsafeBufferPointer { chunk in
                hasher.update(bufferPointer: UnsafeRawBufferPointer(chunk))
                TextDecoding.transcodeWindows1252(chunk, appendingTo: &buffer)
            }
        } else {
            read = try file.read(at: fileOffset, count: chunkSize, appendingTo: &buffer)
            buffer.withUnsafeBufferPointer { all in
                hasher.update(bufferPointer: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: all[start...])))
            }
            if fileOffset == 0 && encoding.skippedPrefix > 0 {
                // The mark is 3 bytes and a chunk at least 4: it is all in the first chunk.
                buffer.removeSubrange(start..<(start + min(encoding.skippedPrefix, read)))
            }
        }
        fileOffset += read
        if read == 0 { isAtEnd = true }
        return read > 0
    }

    /// The SHA-256 of the bytes read, once the stream is at its end.
    func sha256() -> String? {
        isAtEnd ? ImportFile.hex(hasher.finalize()) : nil
    }
}
