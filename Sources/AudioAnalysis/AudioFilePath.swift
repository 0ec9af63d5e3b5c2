import Foundation

/// A file's path as the bytes the file system names it by.
///
/// A Linux file name is any bytes but `/` and NUL, so a name need not be valid UTF-8 (a file
/// copied from an old Latin-1 system, say) and a Swift `String` cannot hold every path. This keeps
/// the bytes to open the file with, and shows the path to people as ``description``: valid UTF-8
/// as it is, every other byte escaped as `\xFF` (`/music/caf\xE9.wav` for a Latin-1 `café.wav`).
public struct AudioFilePath: Hashable, Sendable {
    /// The path's bytes, without a terminating NUL.
    public var bytes: [UInt8]

    /// The path of `string`, in UTF-8.
    public init(_ string: String) {
        bytes = Array(string.utf8)
    }

    /// The path made of `bytes`, as the file system returned them.
    ///
    /// - Precondition: `bytes` holds no NUL.
    public init(bytes: some Sequence<UInt8>) {
        self.bytes = Array(bytes)
        precondition(!self.bytes.contains(0), "A file path cannot hold a NUL byte.")
    }

    /// Whether the bytes are valid UTF-8, so that ``description`` is the path itself.
    public var isValidUTF8: Bool { String(validating: bytes, as: UTF8.self) != nil }

    /// The lower-cased extension of the last component, without the dot: `flac` for
    /// `/music/Song.FLAC`; empty when there is none.
    public var pathExtension: String {
        let name = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).last ?? []
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return "" }
        return Self.escaped(name[name.index(after: dot)...]).lowercased()
    }

    /// The path of `name` inside this folder.
    func appending(_ name: some Collection<UInt8>) -> AudioFilePath {
        var path = self
        if path.bytes.last != UInt8(ascii: "/") { path.bytes.append(UInt8(ascii: "/")) }
        path.bytes.append(contentsOf: name)
        return path
    }

    /// Calls `body` with the path as a NUL-terminated C string, for the file system's calls.
    ///
    /// Do not escape the pointer from `body`.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// `bytes` as text: valid UTF-8 as it is, each byte of an invalid sequence as `\xHH`.
    static func escaped(_ bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var text = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = bytes.startIndex
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                text.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                position = bytes.index(position, offsetBy: encoded.count)
            case .error(let length):
                let end = bytes.index(position, offsetBy: length)
                for byte in bytes[position..<end] {
                    text += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded
                }
                position = end
            case .emptyInput:
                return text
            }
        }
    }
}

// MARK: - CustomStringConvertible

extension AudioFilePath: CustomStringConvertible {
    /// The path for people and for the library store: valid UTF-8 as it is, each byte that is not
    /// part of valid UTF-8 as `\xHH` (`/music/caf\xE9.wav`).
    public var description: String { Self.escaped(bytes) }
}

// MARK: - Comparable

extension AudioFilePath: Comparable {
    /// Byte order, which is code point order for UTF-8.
    public static func < (lhs: AudioFilePath, rhs: AudioFilePath) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

extension String {
    /// Two hex digits: a leading zero for a value below 0x10.
    fileprivate var leftPadded: String { count < 2 ? "0" + self : self }
}
