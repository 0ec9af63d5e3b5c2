import Foundation

/// The parameters Spotify appends to the redirect URI after the user answers the consent page.
public enum AuthorizationRedirect {
    /// Reads the authorization code from redirect query items, checking `state` first.
    ///
    /// - Parameters:
    ///   - items: The query items of the redirect (`code`, `state`, or `error`).
    ///   - expectedState: The `state` this login sent.
    /// - Returns: The authorization code.
    /// - Throws: ``SpotifyError/stateMismatch`` when `state` differs (checked before anything else,
    ///   so a forged redirect learns nothing); ``SpotifyError/authorizationDenied(error:)`` for an
    ///   `error` such as `access_denied`; ``SpotifyError/malformedRedirect(_:)`` otherwise.
    public static func code(from items: [URLQueryItem], expectedState: String) throws -> String {
        let state = items.first { $0.name == "state" }?.value
        guard let state, constantTimeEqual(state, expectedState) else { throw SpotifyError.stateMismatch }
        if let error = items.first(where: { $0.name == "error" })?.value {
            throw SpotifyError.authorizationDenied(error: error)
        }
        guard let code = items.first(where: { $0.name == "code" })?.value, !code.isEmpty else {
            throw SpotifyError.malformedRedirect("it has neither `code` nor `error`")
        }
        return code
    }

    /// Reads the authorization code from a pasted redirect URL (the `--no-browser` mode).
    ///
    /// Accepts the whole URL or just its query (`code=…&state=…`).
    public static func code(fromPastedURL text: String, expectedState: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let query: String
        if let components = URLComponents(string: trimmed), let percentEncoded = components.percentEncodedQuery {
            query = percentEncoded
        } else {
            query = trimmed.hasPrefix("?") ? String(trimmed.dropFirst()) : trimmed
        }
        var components = URLComponents()
        components.percentEncodedQuery = query
        guard let items = components.queryItems, !items.isEmpty else {
            throw SpotifyError.malformedRedirect("no query string found")
        }
        return try code(from: items, expectedState: expectedState)
    }

    /// Compares without an early exit, so timing does not reveal how much of a state matched.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
