import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636): the verifier, its S256 challenge, and `state`.
public enum PKCE {
    /// The unreserved characters a verifier and a state are drawn from (RFC 7636 §4.1).
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Returns a random code verifier of `length` unreserved characters.
    ///
    /// - Parameters:
    ///   - length: 43 to 128 characters (RFC 7636). Defaults to 64.
    ///   - generator: The random source; the system's cryptographic generator by default.
    public static func makeCodeVerifier(
        length: Int = 64,
        using generator: inout some RandomNumberGenerator
    ) -> String {
        precondition((43...128).contains(length), "A PKCE verifier has 43 to 128 characters (RFC 7636).")
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// Returns a random code verifier from the system's cryptographic generator.
    public static func makeCodeVerifier(length: Int = 64) -> String {
        var generator = SystemRandomNumberGenerator()
        return makeCodeVerifier(length: length, using: &generator)
    }

    /// Returns the S256 challenge of `verifier`: `BASE64URL(SHA256(verifier))` without padding.
    public static func makeCodeChallenge(for verifier: String) -> String {
        let digest = SHA256.hash(data: Data(verifier.utf8))
        return Data(digest).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Returns a random `state` of 32 unreserved characters, which ties a redirect to this login.
    public static func makeState(using generator: inout some RandomNumberGenerator) -> String {
        String((0..<32).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// Returns a random `state` from the system's cryptographic generator.
    public static func makeState() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeState(using: &generator)
    }
}
