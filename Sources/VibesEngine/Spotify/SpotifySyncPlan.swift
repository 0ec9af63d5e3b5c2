import Features
import Foundation
import Ingest
import SpotifyWebAPI
import SpotifyWebModel

extension SpotifySync {
    /// How many requests a sync needs, said before it starts (`sync --plan`).
    public struct Plan: Sendable, Hashable, Codable {
        /// One part's share.
        public struct Part: Sendable, Hashable, Codable {
            /// `saved`, `playlists`, `top`, `recent`, `genres` or `features`.
            public var part: String
            /// The requests the sync will send for it (at least, when not `exact`).
            public var requests: Int
            /// Whether the count is exact; otherwise it is a lower bound.
            public var exact: Bool
            /// What the count is made of.
            public var detail: String
        }

        public var parts: [Part] = []
        /// The requests the plan itself sent (counted against the quota too).
        public var planningRequests = 0

        /// The requests the sync needs, summed over the parts (a lower bound unless `exact`).
        public var requests: Int { parts.reduce(0) { $0 + $1.requests } }
        /// Whether every part's count is exact.
        public var exact: Bool { parts.allSatisfy(\.exact) }

        enum CodingKeys: String, CodingKey {
            case parts
            case planningRequests = "planning_requests"
            case requests, exact
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(parts, forKey: .parts)
            try container.encode(planningRequests, forKey: .planningRequests)
            try container.encode(requests, forKey: .requests)
            try container.encode(exact, forKey: .exact)
        }

        public init() {}

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            parts = try container.decode([Part].self, forKey: .parts)
            planningRequests = try container.decode(Int.self, forKey: .planningRequests)
        }
    }

    /// Counts the requests a sync of `parts` would send, from the store's sync state and a few
    /// cheap requests: the first page of saved tracks and the playlist list (which the sync sends
    /// again). Nothing is written.
    public func plan(_ parts: Parts, recheckAudioFeatures: Bool = false) async throws -> Plan {
        var plan = Plan()
        let start = client.requestCounter.value
        let pageSize = SpotifyClient.pageLimit
        func pages(_ count: Int, _ size: Int) -> Int { max(0, (count + size - 1) / size) }

        if parts.contains(.savedTracks) {
            let values = try await store.spotifySyncValues(forKeys: ["saved.newest_added_at", "saved.resume_offset"])
            let watermark = values["saved.newest_added_at"].flatMap(parseTimestamp)
            let resumeOffset = values["saved.resume_offset"].flatMap { Int($0) }
            let first = try await client.savedTracks(offset: 0)
            let total = first.total ?? first.items.count
            if let resumeOffset {
                let left = max(1, pages(total - resumeOffset, pageSize))
                plan.parts.append(
                    .init(
                        part: "saved",
                        requests: left,
                        exact: true,
                        detail: "resuming at \(resumeOffset) of \(total) saved tracks, \(pageSize) a page"
                    )
                )
            } else if let watermark {
                let newer = first.items.prefix {
                    ($0?.addedAt.flatMap(parseTimestamp) ?? .distantFuture) >= watermark
                }.count
                let all = newer == first.items.count && first.items.count < total
                plan.parts.append(
                    .init(
                        part: "saved",
                        requests: all ? 2 : 1,
                        exact: !all,
                        detail: all
                            ? "more than \(newer) tracks saved since the last sync"
                            : "\(newer) tracks saved since the last sync"
                    )
                )
            } else {
                plan.parts.append(
                    .init(
                        part: "saved",
                        requests: max(1, pages(total, pageSize)),
                        exact: true,
                        detail: "\(total) saved tracks, \(pageSize) a page"
                    )
                )
            }
        }

        if parts.contains(.playlists) {
            var playlists: [SpotifySimplifiedPlaylistObject] = []
            var listing = 0
            while true {
                let page = try await client.currentUserPlaylists(offset: playlists.count)
                listing += 1
                playlists += page.items.compactMap { $0 }
                if page.items.isEmpty || playlists.count >= (page.total ?? 0) { break }
            }
            let stored = try await store.spotifyPlaylistStates()
            var changed = 0
            var itemPages = 0
            for playlist in playlists {
                let known = stored[playlist.id]
                if let known, known.source != Self.source { continue }
                if let snapshot = playlist.snapshotID, known?.snapshotID == snapshot { continue }
                changed += 1
                itemPages += max(1, pages(playlist.itemCount ?? 0, 100))
            }
            plan.parts.append(
                .init(
                    part: "playlists",
                    requests: listing + itemPages,
                    exact: true,
                    detail:
                        "\(listing) to list \(playlists.count) playlists, \(itemPages) for the items of the \(changed) that changed"
                )
            )
        }

        if parts.contains(.top) {
            var due = 0
            for range in TimeRange.allCases {
                let fetched = try store.spotifySyncValue(forKey: "top.\(range.rawValue).fetched_at").flatMap(
                    parseTimestamp
                )
                if fetched.map({ now().timeIntervalSince($0) >= topRefreshInterval }) ?? true { due += 1 }
            }
            plan.parts.append(
                .init(
                    part: "top",
                    requests: 2 * due,
                    exact: true,
                    detail: "top tracks and artists for \(due) of 3 time ranges"
                )
            )
        }

        if parts.contains(.recentlyPlayed) {
            plan.parts.append(
                .init(part: "recent", requests: 1, exact: false, detail: "recent plays, 50 a page")
            )
        }

        if parts.contains(.genres) {
            let cutoff = now().addingTimeInterval(-genreRefreshInterval).formatted(.iso8601)
            let due = try await store.countSpotifyArtistsDueForGenres(checkedBefore: cutoff)
            plan.parts.append(
                .init(
                    part: "genres",
                    requests: pages(due, 50),
                    exact: !(parts.contains(.savedTracks) || parts.contains(.playlists)),
                    detail: "\(due) artists due, 50 a request (more if this sync finds new artists)"
                )
            )
        }

        if parts.contains(.audioFeatures) {
            let recorded = try store.spotifyCapability(
                SpotifyAudioFeaturesProvider.capability,
                clientID: client.clientID ?? "(unknown)"
            )
            let forbidden = !recheckAudioFeatures && recorded == "forbidden"
            if forbidden {
                plan.parts.append(
                    .init(
                        part: "features",
                        requests: 0,
                        exact: true,
                        detail: "Spotify's /audio-features is closed to this app; features come from ReccoBeats"
                    )
                )
            } else {
                let missing = try FeatureChain(store: store, providers: []).missingTracks(
                    FeatureChain.Options(scope: .library)
                ).count { $0.spotifyID != nil }
                plan.parts.append(
                    .init(
                        part: "features",
                        requests: pages(missing, SpotifyClient.audioFeaturesBatchSize),
                        exact: false,
                        detail: "\(missing) library tracks without features, 100 a request (stops at the first 403)"
                    )
                )
            }
        }
        plan.planningRequests = client.requestCounter.value - start
        return plan
    }
}
