import ArgumentParser
import Ingest
import VibesCommandSupport

/// Where an analysis draws its tracks from.
enum CandidatePool: String, ExpressibleByArgument, CaseIterable {
    /// The user's library only.
    case library
    /// The library and the reference pool (`import --reference`).
    case all
}

/// `--playlist NAME`, which scopes an analysis of the library to one playlist.
struct PlaylistScopeOptions: ParsableArguments {
    @Option(name: .long, help: "Analyse only the tracks of this playlist (its name or Spotify ID).")
    var playlist: String?

    /// The scope: the playlist when one is named, else `pool`.
    func scope(from pool: CandidatePool = .library) -> TrackScope {
        if let playlist { return .playlist(playlist) }
        return pool == .library ? .library : .all
    }
}

/// `--from library|all` and `--playlist NAME`, for commands that draw candidates.
struct CandidateScopeOptions: ParsableArguments {
    @Option(
        name: .customLong("from"),
        help: "Draw candidates from your library only, or from the library and the reference pool (all)."
    )
    var pool: CandidatePool = .all

    @OptionGroup var playlist: PlaylistScopeOptions

    var scope: TrackScope { playlist.scope(from: pool) }
}

/// Turns an unknown, misspelled or ambiguous `--playlist` into a one-line message and exit code 1.
func describingScope<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as TrackScopeError {
        throw failure(error)
    }
}

/// ``describingScope(_:)`` for asynchronous work.
func describingScope<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as TrackScopeError {
        throw failure(error)
    }
}

/// The scope error with what to run next, as a one-line failure (exit 1, and one JSON error
/// object under `--json`).
private func failure(_ error: TrackScopeError) -> CommandFailure {
    switch error {
    case .unknownPlaylist: CommandFailure("\(error) `vibes-analyze playlists` lists them.")
    case .misspelledPlaylist, .ambiguousPlaylist: CommandFailure(error.description)
    }
}
