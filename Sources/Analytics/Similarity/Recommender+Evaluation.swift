import Features

extension Recommender {
    /// The space recommendations from track seeds are found in, for ``RetrievalComparison``: the
    /// scaled features beside each track's artist context (``ArtistContext``), under cosine
    /// similarity, plus every sparse block (``blocks``). A track as a query is its own row, as a
    /// track seed is in ``recommend(_:)``.
    ///
    /// Its ``SimilaritySpace/signals`` name everything the similarity uses, so that an evaluation
    /// cannot grade it on a label it already knows; ``similaritySpace(excluding:)`` leaves out the
    /// blocks a label derives.
    public var similaritySpace: SimilaritySpace { similaritySpace(excluding: []) }

    /// ``similaritySpace`` without the blocks that use any of `signals`.
    ///
    /// - Parameter signals: Signals the space must not use, such as
    ///   ``EvaluationLabel/derivedSignals``.
    public func similaritySpace(excluding signals: Set<SimilaritySignal>) -> SimilaritySpace {
        let kept = blocks.filter { $0.signals.isDisjoint(with: signals) && weight(of: $0.kind) > 0 }
        var space = SimilaritySpace(
            name: (["vibes-analyze"] + kept.map { "+ " + $0.kind.rawValue.replacingUnderscores() }).joined(
                separator: " "
            ),
            features: artistContext.hybridMatrix(features: features),
            metric: .cosine,
            signals: [.audioFeatures, .artistIdentity]
        )
        for block in kept { space.add(block, weight: weight(of: block.kind)) }
        return space
    }
}

extension String {
    /// "co_membership" → "co-membership".
    fileprivate func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}
