import Foundation

/// Where a row of audio features came from.
///
/// Spotify closed `/v1/audio-features` to new apps on 2024-11-27, so features arrive from a chain
/// of sources: files people export or download, the legacy endpoint for apps that still have it,
/// ReccoBeats (a keyless provider of Spotify's own values), and local analysis of audio files. The
/// store keeps one current row per track and source, each with the source's ``key`` and the time
/// it was fetched; analyses prefer the source that ranks highest in the
/// ``FeatureSourcePrecedence`` the store is configured with.
public enum FeatureSource: Hashable, Sendable, CustomStringConvertible {
    /// A file import, named by the importer's format key (`features-csv`, `exportify`, …).
    case file(format: String)
    /// The Spotify Web API's `/v1/audio-features` endpoint, called by this tool.
    case spotifyAPI
    /// ReccoBeats' `/v1/audio-features`, which serves Spotify's own values by Spotify ID or ISRC.
    case reccoBeats
    /// Estimates from analysing the user's own audio files, named by the analyser's version.
    case localAnalysis(analyzer: String)
    /// Another provider, by name.
    case provider(String)

    /// The stable text stored in the database, such as `file:exportify`, `spotify-api` or
    /// `reccobeats`.
    public var key: String {
        switch self {
        case .file(let format): "file:\(format)"
        case .spotifyAPI: "spotify-api"
        case .reccoBeats: "reccobeats"
        case .localAnalysis(let analyzer): "local:\(analyzer)"
        case .provider(let name): "provider:\(name)"
        }
    }

    /// Parses a ``key``; returns `nil` for text that no source writes.
    public init?(key: String) {
        if key == "spotify-api" {
            self = .spotifyAPI
        } else if key == "reccobeats" {
            self = .reccoBeats
        } else if key.hasPrefix("file:"), key.count > 5 {
            self = .file(format: String(key.dropFirst(5)))
        } else if key.hasPrefix("local:"), key.count > 6 {
            self = .localAnalysis(analyzer: String(key.dropFirst(6)))
        } else if key.hasPrefix("provider:"), key.count > 9 {
            self = .provider(String(key.dropFirst(9)))
        } else {
            return nil
        }
    }

    /// The class of source that precedence ranks.
    public var kind: FeatureSourceKind {
        switch self {
        case .spotifyAPI: .spotifyAPI
        case .file(let format) where format == "exportify" || format == "spotify-json": .export
        case .file(let format) where format == "reccobeats-json": .reccoBeats
        case .file: .dataset
        case .reccoBeats, .provider: .reccoBeats
        case .localAnalysis: .local
        }
    }

    /// The preference under the default precedence when a track has features from several
    /// sources; higher wins. See ``FeatureSourcePrecedence/priority(of:)``.
    public var priority: Int { FeatureSourcePrecedence.default.priority(of: self) }

    public var description: String { key }
}

/// The classes of feature source that a ``FeatureSourcePrecedence`` orders.
public enum FeatureSourceKind: String, CaseIterable, Hashable, Sendable, Codable {
    /// Values fetched live from Spotify's legacy `/audio-features` endpoint.
    case spotifyAPI = "spotify-api"
    /// Exports made through Spotify's API for this user: Exportify CSVs, saved API JSON.
    case export = "export"
    /// ReccoBeats, fetched live or imported from a saved response.
    case reccoBeats = "reccobeats"
    /// Third-party datasets (Kaggle, tidytuesday), whose values may be years old.
    case dataset = "dataset"
    /// Local analysis of the user's audio files: estimates, not Spotify's numbers.
    case local = "local"
}

/// The order in which sources win when a track has features from several of them.
///
/// It is a list of tiers, best first; the kinds in one tier rank equally, and among equals the
/// most recently fetched row wins. Its text form joins tiers with `,` and equals with `=`. The
/// default, `spotify-api=export=reccobeats,dataset,local`, treats every copy of Spotify's current
/// numbers alike (the legacy endpoint, an Exportify file, ReccoBeats, which serves the same values),
/// puts older datasets below them and local estimates last.
public struct FeatureSourcePrecedence: Hashable, Sendable, CustomStringConvertible {
    /// The tiers, best first. Every kind appears exactly once.
    public private(set) var tiers: [[FeatureSourceKind]]

    /// The default precedence.
    public static let `default` = FeatureSourcePrecedence(
        validTiers: [[.spotifyAPI, .export, .reccoBeats], [.dataset], [.local]])

    private init(validTiers: [[FeatureSourceKind]]) {
        tiers = validTiers
    }

    /// Parses the text form, such as `reccobeats,spotify-api=export,dataset,local`.
    ///
    /// - Throws: ``FeatureSourcePrecedenceError`` naming the unknown, repeated or missing kind.
    public init(parsing text: String) throws {
        var seen: Set<FeatureSourceKind> = []
        var tiers: [[FeatureSourceKind]] = []
        for tierText in text.split(separator: ",", omittingEmptySubsequences: false) {
            var tier: [FeatureSourceKind] = []
            for name in tierText.split(separator: "=", omittingEmptySubsequences: false) {
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                guard let kind = FeatureSourceKind(rawValue: trimmed) else {
                    throw FeatureSourcePrecedenceError.unknownKind(trimmed)
                }
                guard seen.insert(kind).inserted else { throw FeatureSourcePrecedenceError.repeatedKind(kind.rawValue) }
                tier.append(kind)
            }
            tiers.append(tier)
        }
        let missing = FeatureSourceKind.allCases.filter { !seen.contains($0) }
        guard missing.isEmpty else { throw FeatureSourcePrecedenceError.missingKinds(missing.map(\.rawValue)) }
        self.tiers = tiers
    }

    /// The stored priority of rows from `source`: higher wins. The first tier gets 100, each
    /// further tier 20 less.
    public func priority(of source: FeatureSource) -> Int {
        priority(of: source.kind)
    }

    /// The priority of a kind of source.
    public func priority(of kind: FeatureSourceKind) -> Int {
        guard let index = tiers.firstIndex(where: { $0.contains(kind) }) else { return 0 }
        return 100 - 20 * index
    }

    public var description: String {
        tiers.map { $0.map(\.rawValue).joined(separator: "=") }.joined(separator: ",")
    }
}

/// A precedence text that cannot be used.
public enum FeatureSourcePrecedenceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A name that is not a ``FeatureSourceKind``.
    case unknownKind(String)
    /// A kind named twice.
    case repeatedKind(String)
    /// Kinds the text leaves out.
    case missingKinds([String])

    public var description: String {
        let known = FeatureSourceKind.allCases.map(\.rawValue).joined(separator: ", ")
        switch self {
        case .unknownKind(let name):
            return "'\(name)' is not a feature source; the sources are \(known)."
        case .repeatedKind(let name):
            return "'\(name)' appears twice in the precedence; name each source once."
        case .missingKinds(let names):
            return "The precedence leaves out \(names.joined(separator: ", ")); name every source: \(known)."
        }
    }
}
