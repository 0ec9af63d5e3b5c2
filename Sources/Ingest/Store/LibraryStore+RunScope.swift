import Features
import Foundation
import GRDB

/// The tracks a clustering run was made of: the whole library, or one playlist.
public enum ClusteringRunScope: Hashable, Sendable, CustomStringConvertible {
    /// The library (with or without the reference pool): what "the latest run" means.
    case library
    /// The tracks of one playlist, by its name as stored.
    case playlist(String)

    /// As stored in `clustering_runs.scope`: `NULL` for the library, `playlist:NAME` for a playlist.
    var storedValue: String? {
        switch self {
        case .library: nil
        case .playlist(let name): "playlist:" + name
        }
    }

    init(storedValue: String?) {
        if let storedValue, storedValue.hasPrefix("playlist:") {
            self = .playlist(String(storedValue.dropFirst("playlist:".count)))
        } else {
            self = .library
        }
    }

    /// "library" or "playlist 'bath time '", as `vibes --list` and the report say it.
    public var description: String {
        switch self {
        case .library: "library"
        case .playlist(let name): "playlist '\(TerminalText.singleLine(name))'"
        }
    }

    /// "library" or "playlist:NAME", as the JSON says it.
    public var wireValue: String { storedValue ?? "library" }

    /// The scope a ``wireValue`` names; anything but `playlist:NAME` is the library.
    public init(wireValue: String) {
        self.init(storedValue: wireValue)
    }
}

extension LibraryStore {
    /// Migration `v18-run-scope`: what each clustering run was made of, and whether a playlist's
    /// run was made the current one (`cluster --playlist X --make-current`). Earlier runs were of
    /// the library, or are treated as such.
    static func addClusteringRunScope(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE clustering_runs ADD COLUMN scope TEXT; -- NULL: the library; 'playlist:NAME'
                ALTER TABLE clustering_runs ADD COLUMN made_current INTEGER NOT NULL DEFAULT 0;
                """
        )
    }

    /// The SQL condition on `clustering_runs` of the runs that can be the current one: those of the
    /// library, and playlist runs made current.
    static let currentRunCondition = "(scope IS NULL OR made_current = 1)"

    /// Records what run `runID` was made of; `makeCurrent` makes a playlist's run the one other
    /// commands use until the next run of the library.
    public func setScope(_ scope: ClusteringRunScope, makeCurrent: Bool = false, ofRun runID: Int64) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE clustering_runs SET scope = ?, made_current = ? WHERE id = ?",
                arguments: [scope.storedValue, makeCurrent, runID]
            )
        }
    }

    /// The ID of the run commands use when none is named: the latest run of the library, or a
    /// later playlist run made current; `nil` when there is none.
    public func currentClusteringRunID() throws -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db,
                sql: "SELECT id FROM clustering_runs WHERE \(Self.currentRunCondition) ORDER BY id DESC LIMIT 1"
            )
        }
    }

    /// The clusters of run `runID` numbered as `vibes` prints them: largest first, ties by
    /// cluster index, so that vibe 1 is the element at index 0.
    public func rankedClusters(ofRun runID: Int64) throws -> [ClusterRecord] {
        try clusters(ofRun: runID).sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }
    }

    /// The scope of every saved run, by run ID.
    public func clusteringRunScopes() throws -> [Int64: ClusteringRunScope] {
        try read { db in
            var scopes: [Int64: ClusteringRunScope] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, scope FROM clustering_runs") {
                scopes[row[0]] = ClusteringRunScope(storedValue: row[1])
            }
            return scopes
        }
    }
}
