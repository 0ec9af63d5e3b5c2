import Foundation

/// An error of the token server: a refresh token it cannot open, or a key, secret or address it
/// cannot use.
///
/// Descriptions say what is wrong and with which file; what to run next is the caller's to say.
/// They never contain a key, a secret or a token.
public enum TokenServerError: Error, Sendable, Hashable {
    /// A sealed refresh token that this server did not issue for this client ID, or that was changed.
    case invalidToken(InvalidTokenReason)
    /// A key of `byteCount` bytes where AES-256 needs 32.
    case invalidKeyLength(byteCount: Int)
    /// A key or secret file does not hold what it should: one line, and for a key 64 hexadecimal
    /// characters.
    case malformedFile(path: String, reason: String)
    /// A file holding a key or a secret may be read or changed by other users.
    ///
    /// - Parameter mode: The file's permission bits, such as `0o644`.
    case fileNotPrivate(path: String, mode: Int)
    /// A file could not be read (missing, a folder, no permission).
    case cannotReadFile(path: String, reason: String)
    /// A new key was not written because the file exists.
    case fileExists(path: String)
    /// A new key could not be written.
    case cannotWriteFile(path: String, reason: String)
    /// The server could not listen on `address`:`port` (in use, not an address of this machine).
    case cannotListen(address: String, port: UInt16, reason: String)

    /// Why a sealed refresh token was refused.
    public enum InvalidTokenReason: String, Sendable, Hashable, CaseIterable {
        /// It does not start with a version this server knows (`v1.`).
        case unknownVersion = "unknown_version"
        /// The part after the version is not unpadded base64url.
        case notBase64URL = "not_base64url"
        /// It is too short to hold a nonce, a tag and a token.
        case truncated
        /// Decryption failed: another key, another client ID, or a changed character.
        case notAuthentic = "not_authentic"
    }
}

// MARK: - Descriptions

extension TokenServerError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidToken(let reason):
            return "The refresh token was not issued by this token server: \(reason)."
        case .invalidKeyLength(let byteCount):
            return "An AES-256 key has 32 bytes; this one has \(byteCount)."
        case .malformedFile(let path, let reason):
            return "\(path) cannot be used: \(reason)."
        case .fileNotPrivate(let path, let mode):
            return
                "\(path) holds a secret but other users may read or change it (mode \(String(mode & 0o7777, radix: 8)))."
        case .cannotReadFile(let path, let reason):
            return "Cannot read \(path): \(reason)."
        case .fileExists(let path):
            return "\(path) already exists; a new key is written only to a new file."
        case .cannotWriteFile(let path, let reason):
            return "Cannot write \(path): \(reason)."
        case .cannotListen(let address, let port, let reason):
            return "The token server cannot listen on \(address) port \(port): \(reason)."
        }
    }
}

extension TokenServerError.InvalidTokenReason: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unknownVersion: "it does not start with \(RefreshTokenSealer.versionPrefix)"
        case .notBase64URL: "it is not base64url"
        case .truncated: "it is too short"
        case .notAuthentic: "it was sealed under another key or client ID, or it was changed"
        }
    }
}
