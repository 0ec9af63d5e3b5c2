import Features
import Ingest
import SpotifyWebAPI

/// What one run of a playlist recipe did.
public struct RecipeRun: Encodable, Sendable {
    /// The recipe's name, which is also the playlist's.
    public var recipe: String
    /// The tracks of the playlist built.
    public var tracks: Int
    /// Tracks of the previous build that stayed in the same place.
    public var keptInPlace: Int
    /// What was written on Spotify, if anything.
    public var spotify: PlaylistUpdateResult?
    /// Whether the Spotify playlist was created by this run.
    public var created: Bool

    enum CodingKeys: String, CodingKey {
        case recipe, tracks, spotify, created
        case keptInPlace = "kept_in_place"
    }
}

extension LibraryStore {
    /// Runs the recipe `name`: ``runRecipe(_:request:push:makeClient:)`` with the request
    /// `makeRequest` makes of it.
    ///
    /// - Throws: ``EngineError/noSuchRecipe(name:)`` when there is no such recipe, and what
    ///   `makeRequest` and ``runRecipe(_:request:push:makeClient:)`` throw.
    public func runRecipe(
        named name: String,
        push: Bool,
        makeRequest: (PlaylistRecipe) throws -> PlaylistRequest,
        makeClient: () throws -> SpotifyClient
    ) async throws -> RecipeRun {
        guard let recipe = try recipe(named: name) else { throw EngineError.noSuchRecipe(name: name) }
        return try await runRecipe(recipe, request: try makeRequest(recipe), push: push, makeClient: makeClient)
    }

    /// Builds a recipe's playlist again from the library as it is now, keeping the tracks of the
    /// previous build in their places where it can, and saves it under the recipe's name. When the
    /// recipe has a Spotify playlist it is updated in place; `push` creates one when it has none.
    ///
    /// - Parameters:
    ///   - recipe: The recipe.
    ///   - request: The build its options describe.
    ///   - push: Create the Spotify playlist if the recipe has none yet.
    ///   - makeClient: Makes the Spotify client, when the run writes to Spotify.
    /// - Throws: The errors of ``buildPlaylist(_:)``, `SpotifyError` and
    ///   ``PlaylistPushInterruptedError`` from the write to Spotify.
    public func runRecipe(
        _ recipe: PlaylistRecipe,
        request: PlaylistRequest,
        push: Bool,
        makeClient: () throws -> SpotifyClient
    ) async throws -> RecipeRun {
        let previous = try builtPlaylist(named: recipe.name)?.entries.map(\.trackID) ?? []
        var playlist = try buildPlaylist(request).playlist
        let entries = playlist.entries
        let ordered = Self.keepingPlaces(entries.map(\.trackID), previous: previous)
        let byID = Dictionary(entries.map { ($0.trackID, $0) }, uniquingKeysWith: { first, _ in first })
        playlist.entries = ordered.compactMap { byID[$0] }
        try saveBuiltPlaylist(
            playlist,
            settings: "playlist recipe \(recipe.name): " + recipe.arguments.joined(separator: " ")
        )
        var run = RecipeRun(
            recipe: recipe.name,
            tracks: playlist.entries.count,
            keptInPlace: zip(ordered, previous).count { $0 == $1 },
            spotify: nil,
            created: false
        )
        if recipe.spotifyID == nil && !push {
            try recordRecipeRun(name: recipe.name, spotifyID: nil)
            return run
        }
        let client = try makeClient()
        let pushable = try pushablePlaylist(matching: "built:" + Track.normalizedName(recipe.name))
        if let id = recipe.spotifyID.flatMap({ SpotifyID($0) }) {
            run.spotify = try await updateInPlace(id, name: recipe.name, to: pushable.uris, using: client)
            try recordPush(of: pushable.rowID, spotifyID: id, snapshotID: run.spotify?.snapshotID)
        } else {
            let result = try await SpotifyPlaylistPusher(client: client, store: self).push(pushable)
            run.created = true
            run.spotify = PlaylistUpdateResult(
                spotifyID: result.spotifyID,
                removed: 0,
                added: result.itemCount,
                moves: 0,
                kept: 0,
                snapshotID: result.snapshotID
            )
        }
        try recordRecipeRun(name: recipe.name, spotifyID: run.spotify?.spotifyID)
        return run
    }

    /// `fresh` (the new build's tracks, in its order) rearranged so that every track of
    /// `previous` it still holds sits where it sat before, when that place is within the new
    /// length; the others fill the free places in their order.
    static func keepingPlaces(_ fresh: [Int64], previous: [Int64]) -> [Int64] {
        let wanted = Set(fresh)
        var slots = [Int64?](repeating: nil, count: fresh.count)
        var placed: Set<Int64> = []
        for (position, id) in previous.enumerated() where position < slots.count {
            if wanted.contains(id) && !placed.contains(id) {
                slots[position] = id
                placed.insert(id)
            }
        }
        var rest = fresh.filter { !placed.contains($0) }.makeIterator()
        return slots.compactMap { $0 ?? rest.next() }
    }
}
