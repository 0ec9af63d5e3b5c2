extension LibraryStore {
    /// The feature source in force for each track with features: the one the precedence picked
    /// for its current row.
    ///
    /// Read from the `features` snapshot without its values. A store with more than 64 sources
    /// keeps no per-track numbers there, and answers empty lists.
    ///
    /// - Returns: The sources' names, and the tracks with features (ascending) each with the index
    ///   of its source in `sources`.
    public func preferredFeatureSources() throws -> (sources: [String], trackIDs: [Int64], sourceIndices: [UInt8]) {
        let snapshot = try featureSnapshot(only: FeatureSnapshot.countParts)
        guard snapshot.hasStatistics, !snapshot.sources.isEmpty else { return ([], [], []) }
        return (snapshot.sources, snapshot.trackIDs, snapshot.preferred)
    }
}
