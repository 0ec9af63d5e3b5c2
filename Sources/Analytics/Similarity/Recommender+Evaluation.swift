import Features

extension Recommender {
    /// The space recommendations from track seeds are found in, for ``RetrievalComparison``: the
    /// scaled features beside each track's artist context (``ArtistContext``), under cosine
    /// similarity. A track as a query is its own row, as a track seed is in ``recommend(_:)``.
    ///
    /// Its ``SimilaritySpace/signals`` must name everything the similarity uses; a similarity that
    /// adds tags, artists or playlists declares them here, so that an evaluation cannot grade it on
    /// a label it already knows.
    public var similaritySpace: SimilaritySpace {
        SimilaritySpace(
            name: "vibes-analyze",
            features: artistContext.hybridMatrix(features: features),
            metric: .cosine,
            signals: [.audioFeatures, .artistIdentity]
        )
    }
}
