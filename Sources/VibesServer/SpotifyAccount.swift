import Foundation
import SpotifyWebAPI

/// The Spotify account the web app writes to, looked up again at every write and status check.
///
/// A sign-in made with `vibes-analyze auth login` after the server started is used without a
/// restart, and a sign-out is noticed as well. The tokens stay inside the client: none of them
/// reaches a page, an answer or a log.
///
/// ```swift
/// let account = SpotifyAccount.savedSession { try makeClient() }
/// let server = VibesServer(configuration: .init(), store: store, spotify: account)
/// ```
public struct SpotifyAccount: Sendable {
    /// Returns a client over the current sign-in, or `nil` when nobody is signed in.
    let signedInClient: @Sendable () async throws -> SpotifyClient?

    /// An account given by a function that returns a client over the current sign-in.
    ///
    /// - Parameter signedInClient: Called at every write; returns `nil` when nobody is signed in,
    ///   and throws when the sign-in cannot be read (which the server reports as not signed in).
    public init(signedInClient: @escaping @Sendable () async throws -> SpotifyClient?) {
        self.signedInClient = signedInClient
    }

    /// The session a token store keeps in its file, read afresh at every write.
    ///
    /// - Parameter makeClient: Makes a client and its token store from the current settings; it is
    ///   called each time, so a session file written later (or removed) is seen.
    /// - Returns: An account that is signed in while the token store holds a session.
    public static func savedSession(
        _ makeClient: @escaping @Sendable () throws -> (SpotifyClient, TokenStore)
    ) -> SpotifyAccount {
        SpotifyAccount {
            let (client, tokens) = try makeClient()
            return try await tokens.session() == nil ? nil : client
        }
    }
}
