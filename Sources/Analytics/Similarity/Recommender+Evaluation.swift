import Features

extension Recommender {
    /// The space recommendations are found in, for ``RetrievalComparison``: the scaled features
    /// under cosine similarity.
    ///
    /// Its ``SimilaritySpace/signals`` must name everything the similarity uses; a similarity that
    /// adds tags, artists or playlists declares them here, so that an evaluation cannot grade it on
    /// a label it already knows.
    public var similaritySpace: SimilaritySpace {
        SimilaritySpace(name: "vibes-analyze", features: features, metric: .cosine, signals: [.audioFeatures])
    }
}
