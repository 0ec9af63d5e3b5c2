import Analytics
import Features
import Ingest

extension LibraryStore {
    /// Learns personal similarity weights from the imported playlists and stores them.
    ///
    /// Co-membership is the playlists themselves, and genre tags may be given per playlist: the
    /// weights are learned on the sound and the artist genres alone, with the default weights.
    ///
    /// - Parameters:
    ///   - seed: The seed of the folds, the query sample and the bootstrap.
    ///   - progress: Called with the folds done and the folds.
    /// - Returns: The learned weights and their grading on held-out playlists.
    /// - Throws: `AnalyticsError.tooFewPlaylists` when too few playlists are long enough.
    public func learnPersonalWeights(
        seed: UInt64,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> BlockWeightLearning.Outcome {
        var recommender = try makeRecommender(weights: .defaults, context: false)
        let ids = recommender.features.trackIDs
        if let tags = SimilarityBlock.tags(
            from: try tagSources(),
            trackIDs: ids,
            excluding: EvaluationLabel.playlist.derivedSignals
        ) {
            recommender = recommender.adding(tags)
        }
        let outcome = try BlockWeightLearning.learn(
            recommender: recommender,
            playlists: try playlistLabels(of: ids),
            seed: seed,
            progress: progress
        )
        try savePersonalWeights(outcome.weights)
        return outcome
    }
}
