import FlyingSocks
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An audio file of the library opened for serving: a descriptor held open until the last body
/// reading it is gone, its size, and its media type.
///
/// It opens only what ``init(opening:)`` accepts, so that a path the store names cannot be
/// turned into a way to read another file: the path must be absolute; it is resolved (folders
/// and the file itself may be symbolic links, as music libraries often are), and the file it
/// resolves to must have an audio file name extension, both as stored and as resolved, and be a
/// regular file. The resolved path is opened without following a link in its last component,
/// and the opened file is checked again, so that a file swapped for a link in between is refused
/// too; a folder of the path swapped for a link in between is followed, but what is opened must
/// still be a regular file with an audio file name extension. A FIFO or device is never opened
/// for reading in a way that could block.
///
/// This is the only file of the target that uses pointers.
final class LocalAudioFile: Sendable {
    /// The media type of each audio file name extension the server serves (lower-case).
    static let mediaTypes: [String: String] = [
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "m4b": "audio/mp4", "mp4": "audio/mp4", "alac": "audio/mp4",
        "aac": "audio/aac", "flac": "audio/flac", "wav": "audio/wav", "wave": "audio/wav", "aif": "audio/aiff",
        "aiff": "audio/aiff", "aifc": "audio/aiff", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg",
        "wma": "audio/x-ms-wma", "ape": "audio/x-ape", "wv": "audio/x-wavpack", "mpc": "audio/x-musepack",
        "dsf": "audio/x-dsf", "webm": "audio/webm", "mka": "audio/x-matroska",
    ]

    let descriptor: Int32
    /// The size in bytes when opened.
    let size: Int
    let mediaType: String

    /// Opens the audio file at `storedPath`, or returns `nil` when the path is not one the server
    /// serves: not absolute, not an audio file name, not there, or not a regular file.
    init?(opening storedPath: String) {
        guard storedPath.hasPrefix("/"), Self.mediaType(ofPath: storedPath) != nil,
            let resolvedPointer = realpath(storedPath, nil)
        else { return nil }
        let resolved = String(cString: resolvedPointer)
        free(resolvedPointer)
        guard let mediaType = Self.mediaType(ofPath: resolved) else { return nil }
        // Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
        let descriptor = open(resolved, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.size = Int(status.st_size)
        self.mediaType = mediaType
    }

    deinit {
        close(descriptor)
    }

    /// The media type of `path` by its file name extension, or `nil` when it is not an audio one.
    static func mediaType(ofPath path: String) -> String? {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return mediaTypes[name[name.index(after: dot)...].lowercased()]
    }

    /// The bytes of `range`, read on `reads` as the answer is sent.
    func bytes(in range: Range<Int>, readingOn reads: BlockingQueue) -> Bytes {
        Bytes(file: self, range: range, reads: reads)
    }

    /// The bytes of a range of the file, read with `pread` in chunks as FlyingFox asks for them,
    /// on the server's ``BlockingQueue``: a read of a slow disk holds none of the cooperative
    /// pool's threads.
    struct Bytes: AsyncBufferedSequence {
        typealias Element = UInt8

        let file: LocalAudioFile
        let range: Range<Int>
        let reads: BlockingQueue

        func makeAsyncIterator() -> Iterator {
            Iterator(file: file, offset: range.lowerBound, end: range.upperBound, reads: reads)
        }

        struct Iterator: AsyncBufferedIteratorProtocol {
            let file: LocalAudioFile
            var offset: Int
            let end: Int
            let reads: BlockingQueue

            mutating func next() async throws -> UInt8? {
                try await nextBuffer(suggested: 1)?.first
            }

            mutating func nextBuffer(suggested count: Int) async throws -> Data? {
                guard offset < end else { return nil }
                let wanted = Swift.min(Swift.max(count, 1), end - offset)
                let (file, offset) = (file, offset)
                let data = try await reads.run { () throws -> Data in
                    var data = Data(count: wanted)
                    let read = data.withUnsafeMutableBytes { buffer in
                        pread(file.descriptor, buffer.baseAddress, wanted, off_t(offset))
                    }
                    // The file shrank since it was opened: the answer cannot be completed, and the
                    // error closes the connection rather than send short.
                    guard read > 0 else { throw LocalAudioFileError.shrank }
                    return read == wanted ? data : data.prefix(read)
                }
                self.offset += data.count
                return data
            }
        }
    }
}

/// The file being sent ended before its announced length.
enum LocalAudioFileError: Error {
    case shrank
}
