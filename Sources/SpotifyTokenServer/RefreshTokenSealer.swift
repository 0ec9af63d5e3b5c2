import Crypto
import Foundation

/// Encrypts Spotify refresh tokens before the token server hands them to an app, and decrypts
/// them when the app asks for a refresh.
///
/// A sealed token is `v1.` followed by the unpadded base64url encoding of a 12-byte random nonce,
/// the AES-256-GCM ciphertext and the 16-byte tag. The client ID is the associated data, so a
/// token sealed for one client ID does not open for another, and any changed character makes it
/// fail to open. An app holding a sealed token can use it only through this server, which adds the
/// client secret; a leaked sealed token is useless once the key is replaced.
///
/// ```swift
/// let sealer = try RefreshTokenSealer(keyFile: "/etc/vibes/token-key", clientID: clientID)
/// let sealed = try sealer.seal(refreshToken)   // "v1.q83v…"
/// let plain = try sealer.open(sealed)          // refreshToken
/// ```
public struct RefreshTokenSealer: Sendable {
    /// The prefix of every sealed token this version writes.
    public static let versionPrefix = "v1."
    /// The length of a key in bytes (AES-256).
    public static let keyByteCount = 32

    /// The raw key; a `SymmetricKey` is made per use because it is not `Sendable`.
    private let keyData: Data
    private let associatedData: Data

    /// The client ID tokens are bound to.
    public let clientID: String

    /// Creates a sealer from raw key bytes.
    ///
    /// - Parameters:
    ///   - key: 32 random bytes.
    ///   - clientID: The Spotify app's client ID, bound to every token as associated data.
    /// - Throws: ``TokenServerError/invalidKeyLength(byteCount:)`` when `key` is not 32 bytes.
    public init(key: Data, clientID: String) throws {
        guard key.count == Self.keyByteCount else { throw TokenServerError.invalidKeyLength(byteCount: key.count) }
        self.keyData = key
        self.clientID = clientID
        self.associatedData = Data(clientID.utf8)
    }

    /// Creates a sealer from a key file: 64 hexadecimal characters on one line, readable by its
    /// owner only (as ``writeNewKey(toFile:)`` makes it).
    ///
    /// - Parameters:
    ///   - path: The key file; a symbolic link is followed.
    ///   - clientID: The Spotify app's client ID.
    /// - Throws: ``TokenServerError/fileNotPrivate(path:mode:)`` when group or others have any
    ///   permission on the file; ``TokenServerError/malformedFile(path:reason:)``;
    ///   ``TokenServerError/cannotReadFile(path:reason:)``.
    public init(keyFile path: String, clientID: String) throws {
        let line = try PrivateFile.readLine(atPath: path)
        guard let key = Self.decodeHex(line), key.count == Self.keyByteCount else {
            let isHex = line.utf8.allSatisfy(Self.hexDigits.contains)
            throw TokenServerError.malformedFile(
                path: path,
                reason: isHex
                    ? "it holds \(line.count) hexadecimal characters where a 256-bit key has 64"
                    : "it holds characters other than the 64 hexadecimal digits of a 256-bit key"
            )
        }
        try self.init(key: key, clientID: clientID)
    }

    /// Writes a new random 256-bit key to a new file with mode 0600, as 64 lower-case hexadecimal
    /// characters and a line break.
    ///
    /// - Parameter path: Where to write; nothing may exist there yet.
    /// - Throws: ``TokenServerError/fileExists(path:)`` rather than replace a key that may be in
    ///   use; ``TokenServerError/cannotWriteFile(path:reason:)``.
    public static func writeNewKey(toFile path: String) throws {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<keyByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        try PrivateFile.create(atPath: path, line: key.map { String(format: "%02x", $0) }.joined())
    }

    // MARK: - Sealing

    /// Returns `refreshToken` encrypted under the key and bound to the client ID, with a fresh nonce.
    public func seal(_ refreshToken: String) throws -> String {
        let box = try AES.GCM.seal(
            Data(refreshToken.utf8),
            using: SymmetricKey(data: keyData),
            authenticating: associatedData
        )
        // `combined` is nonce + ciphertext + tag; it is `nil` only for nonces of other sizes.
        guard let combined = box.combined else { preconditionFailure("AES.GCM.seal made a nonstandard nonce") }
        return Self.versionPrefix + Self.base64URLEncode(combined)
    }

    /// Returns the refresh token inside `sealed`.
    ///
    /// - Throws: ``TokenServerError/invalidToken(_:)`` when `sealed` was not made by ``seal(_:)``
    ///   with this key and client ID, or was changed since.
    public func open(_ sealed: String) throws -> String {
        guard sealed.hasPrefix(Self.versionPrefix) else { throw TokenServerError.invalidToken(.unknownVersion) }
        let encoded = sealed.dropFirst(Self.versionPrefix.count)
        guard let combined = Self.base64URLDecode(encoded) else { throw TokenServerError.invalidToken(.notBase64URL) }
        // A nonce, a tag and at least one byte of token.
        guard combined.count > 12 + 16 else { throw TokenServerError.invalidToken(.truncated) }
        do {
            let box = try AES.GCM.SealedBox(combined: combined)
            let plain = try AES.GCM.open(box, using: SymmetricKey(data: keyData), authenticating: associatedData)
            guard let token = String(data: plain, encoding: .utf8) else {
                throw TokenServerError.invalidToken(.notAuthentic)
            }
            return token
        } catch {
            throw TokenServerError.invalidToken(.notAuthentic)
        }
    }

    // MARK: - Encodings

    static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url, refusing any other spelling of the same bytes (padding, `+`,
    /// `/`, stray bits in the last character), so that every changed character is a changed token.
    static func base64URLDecode(_ text: Substring) -> Data? {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard !text.isEmpty, text.utf8.allSatisfy(alphabet.contains) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), base64URLEncode(data) == text else { return nil }
        return data
    }

    private static let hexDigits = Set("0123456789abcdefABCDEF".utf8)

    /// Decodes hexadecimal digits (either case) into bytes; `nil` for anything else.
    static func decodeHex(_ text: String) -> Data? {
        guard text.utf8.allSatisfy(hexDigits.contains), text.utf8.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return Data(bytes)
    }
}
