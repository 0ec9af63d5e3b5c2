import Foundation
import VibesHTTP

/// An error from the Spotify Web API or the Spotify accounts service, with the endpoint and
/// Spotify's own message.
///
/// Descriptions say what happened and where; what to run next is the caller's to say (the
/// command-line tool adds it). They never contain tokens, codes or secrets; raw bodies pass through
/// ``Redaction`` first.
public enum SpotifyError: Error, Sendable, Equatable {
    /// Spotify answered with an error status.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - message: `error.message` from Spotify's body, when it had one (403 on audio features
    ///     has none).
    ///   - endpoint: Such as `GET /v1/me/tracks`.
    case http(status: Int, message: String?, endpoint: String)
    /// Spotify asked us to wait longer than the retry budget allows, or kept refusing.
    ///
    /// - Parameters:
    ///   - retryAfter: The `Retry-After` value, or `nil` when Spotify sent none.
    ///   - retryAt: The earliest time worth trying again, when known.
    case rateLimited(retryAfter: Duration?, retryAt: Date?, endpoint: String)
    /// No response arrived (connection refused or dropped, timeout), after `attempts` tries.
    case network(reason: String, attempts: Int, endpoint: String)
    /// A response could not be decoded. `body` is the raw body, redacted and cut to 2,000 characters.
    case decoding(reason: String, status: Int, body: String, endpoint: String)
    /// The `endpoint` of ``decoding(reason:status:body:endpoint:)`` for a damaged session file.
    public static let sessionFileEndpoint = "session file"
    /// The audio features endpoint refused this client ID (Spotify's restriction since 2024-11-27).
    case audioFeaturesForbidden(clientID: String)
    /// There is no stored session: the user has not signed in, or signed out.
    case notSignedIn
    /// Spotify revoked the refresh token (`invalid_grant`); the stored session was removed.
    case sessionRevoked(description: String?)
    /// The accounts service refused a token request with an OAuth error such as `invalid_client`.
    case tokenRequestFailed(error: String, description: String?, status: Int)
    /// The user, or Spotify, refused the authorization (`error=access_denied` on the redirect).
    case authorizationDenied(error: String)
    /// The redirect carried a `state` other than the one this login sent: possibly forged.
    case stateMismatch
    /// The redirect URL had neither a `code` nor an `error`.
    case malformedRedirect(String)
    /// No client ID was configured.
    case missingClientID
    /// The loopback server for the sign-in redirect could not listen on `port`.
    case callbackServerUnavailable(port: UInt16, reason: String)
    /// A player command was refused for a reason Spotify names: `NO_ACTIVE_DEVICE` (nothing is
    /// playing anywhere and no device was named) or `PREMIUM_REQUIRED`.
    case playerRefused(reason: String, message: String?, endpoint: String)

    /// The developer account's quota is used up: a 429 whose body says `"reason": "QUOTA_EXCEEDED"`,
    /// with a `Retry-After` of hours. Since July 2026 the quota is shared by every app of one
    /// developer account. It is never waited out.
    ///
    /// - Parameters:
    ///   - retryAfter: The `Retry-After` value, or `nil` when Spotify sent none.
    ///   - resetsAt: When the quota resets, when known.
    case quotaExceeded(retryAfter: Duration?, resetsAt: Date?, endpoint: String)
    /// Spotify answered `403 Insufficient client scope`: the sign-in lacks `scope`, which the
    /// endpoint needs (`nil` when the client does not know which).
    case missingScope(scope: String?, endpoint: String)
    /// The command's request budget (`--max-requests`) was spent before `endpoint` could be asked;
    /// nothing was sent for it.
    case requestBudgetReached(limit: Int, endpoint: String)

    /// The reason in a 429 body that means the developer quota, not the rolling rate limit.
    public static let quotaReason = "QUOTA_EXCEEDED"
    /// Spotify's message for a token without the scope an endpoint needs.
    static let insufficientScopeMessage = "Insufficient client scope"

    /// The player reasons that become ``playerRefused(reason:message:endpoint:)``.
    static let playerReasons: Set<String> = ["NO_ACTIVE_DEVICE", "PREMIUM_REQUIRED"]
}

// MARK: - Descriptions

extension SpotifyError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .http(let status, let message, let endpoint):
            let detail = message.map { ": \(Redaction.redact($0))" } ?? ""
            let meaning: String
            switch status {
            case 403: meaning = " The account or this app lacks permission."
            case 500...: meaning = " Spotify is having trouble."
            default: meaning = ""
            }
            return "Spotify answered \(status) to \(endpoint)\(detail).\(meaning)"
        case .rateLimited(let retryAfter, let retryAt, let endpoint):
            var text = "Spotify's rate limit stopped \(endpoint)"
            if let retryAfter {
                text += ": it asked to wait \(retryAfter.waitDescription)"
            } else {
                text += " and did not say for how long"
            }
            if let retryAt {
                text += ". Try again after \(retryAt.formatted(.iso8601)) (UTC)"
            } else {
                text += ". Try again in a few minutes"
            }
            return text + "."
        case .quotaExceeded(let retryAfter, let resetsAt, let endpoint):
            var text =
                "Spotify's request quota for this app's developer account is used up (429 QUOTA_EXCEEDED on \(endpoint))"
            if let retryAfter { text += "; it resets in \(retryAfter.waitDescription)" }
            if let resetsAt { text += ", at \(resetsAt.formatted(.iso8601)) (UTC)" }
            if retryAfter == nil && resetsAt == nil { text += "; Spotify did not say when it resets" }
            return text + ". Every app of the developer account shares this quota."
        case .missingScope(let scope, let endpoint):
            let what = scope.map { "the scope \($0), which it needs" } ?? "a scope it needs"
            return "Spotify refused \(endpoint): the sign-in lacks \(what) (403 Insufficient client scope)."
        case .requestBudgetReached(let limit, let endpoint):
            return
                "The budget of \(limit) request\(limit == 1 ? "" : "s") was spent before \(endpoint); nothing more was sent."
        case .network(let reason, let attempts, let endpoint):
            return "Could not reach Spotify for \(endpoint) after \(attempts) attempt\(attempts == 1 ? "" : "s"): "
                + "\(Redaction.redact(reason))."
        case .decoding(let reason, let status, let body, let endpoint):
            return "Could not read Spotify's answer to \(endpoint) (status \(status)): \(reason). Body: \(body)"
        case .audioFeaturesForbidden(let clientID):
            return """
                Spotify refused audio features (403) for client ID \(clientID): apps created after \
                2024-11-27 have no access to /v1/audio-features, and it is not asked again with this \
                client ID. Features can come from ReccoBeats or from files: an Exportify CSV \
                (https://exportify.app), the Kaggle or tidytuesday Spotify datasets.
                """
        case .notSignedIn:
            return "Not signed in to Spotify."
        case .sessionRevoked(let description):
            let detail = description.map { " (\(Redaction.redact($0)))" } ?? ""
            return
                "Spotify revoked the stored sign-in\(detail), so it was removed."
        case .tokenRequestFailed(let error, let description, let status):
            let detail = description.map { ": \(Redaction.redact($0))" } ?? ""
            let hint =
                error == "invalid_client" ? " Check the client ID and secret (--client-id, $SPOTIFY_CLIENT_ID)." : ""
            return "Spotify's accounts service refused the token request (\(status) \(error)\(detail)).\(hint)"
        case .authorizationDenied(let error):
            return "The Spotify sign-in was not completed (\(error))."
        case .stateMismatch:
            return
                "The sign-in redirect carried the wrong `state`, so it was rejected."
        case .malformedRedirect(let reason):
            return
                "The sign-in redirect could not be read: \(Redaction.redact(reason)). Paste the whole URL of the page the browser landed on."
        case .playerRefused(let reason, let message, let endpoint):
            let meaning =
                switch reason {
                case "NO_ACTIVE_DEVICE": "no device is active"
                case "PREMIUM_REQUIRED": "controlling playback needs Spotify Premium"
                default: reason
                }
            return "Spotify refused \(endpoint): \(meaning) (\(reason)\(message.map { ": " + $0 } ?? ""))."
        case .callbackServerUnavailable(let port, let reason):
            return """
                Cannot listen on 127.0.0.1:\(port) for the sign-in redirect (\(reason)). Another program may \
                use the port: pick another with --port and register http://127.0.0.1:<port>/callback for the \
                app, or sign in with --no-browser.
                """
        case .missingClientID:
            return """
                No Spotify client ID. Create an app at https://developer.spotify.com/dashboard with the \
                redirect URI http://127.0.0.1:8977/callback (or your --port), then pass --client-id, set \
                $SPOTIFY_CLIENT_ID, or put {"client_id": "…"} in ~/.config/vibes-analyze/spotify.json.
                """
        }
    }
}

extension SpotifyError: CustomDebugStringConvertible {
    /// The same as ``description``, so `String(reflecting:)` cannot reveal a secret either.
    public var debugDescription: String { "SpotifyError: \(description)" }
}

extension SpotifyError: RetryFailure {}

extension SpotifyError: LocalizedError {
    public var errorDescription: String? { description }
}
