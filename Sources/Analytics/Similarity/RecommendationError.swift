/// An error in a recommendation or playlist request, with the option to change.
public enum RecommendationError: Error, CustomStringConvertible, Equatable {
    /// Neither a seed nor a target was given.
    case noSeeds
    /// More than ``RecommendationQuery/maximumSeedCount`` positive seeds.
    case tooManySeeds(count: Int)
    /// A result count outside 1…100.
    case invalidCount(Int)
    /// A diversity outside 0…1.
    case invalidDiversity(Double)
    /// `min_*` above `max_*`.
    case emptyRange(attribute: TunableAttribute, minimum: Double, maximum: Double)
    /// A bound or target outside the attribute's range.
    case outOfRange(attribute: TunableAttribute, value: Double)
    /// A seed names a track that has no audio features in the library.
    case seedWithoutFeatures(trackID: Int64)
    /// A group seed (artist, vibe) has no tracks with features.
    case emptySeed(label: String)
    /// The filters removed every candidate.
    case nothingLeft(candidates: Int)

    public var description: String {
        switch self {
        case .noSeeds:
            "Please give at least one seed (--seed, --seed-artist, --vibe, --mood) or a target (--target-energy 0.8, …)."
        case .tooManySeeds(let count):
            "Please give at most \(RecommendationQuery.maximumSeedCount) seeds (got \(count)), as Spotify's endpoint did."
        case .invalidCount(let count):
            "Please ask for 1 to \(RecommendationQuery.maximumCount) tracks (got \(count))."
        case .invalidDiversity(let value):
            "Please give a diversity from 0 (similarity only) to 1 (variety only), got \(value)."
        case .emptyRange(let attribute, let minimum, let maximum):
            "--min-\(attribute.optionName) \(minimum) is above --max-\(attribute.optionName) \(maximum); no track can match."
        case .outOfRange(let attribute, let value):
            "\(value) is outside \(attribute.rawValue)'s range \(attribute.acceptedRange.lowerBound)…\(attribute.acceptedRange.upperBound)."
        case .seedWithoutFeatures(let trackID):
            "The seed track (store ID \(trackID)) has no audio features; import features for it or pick another seed."
        case .emptySeed(let label):
            "The seed \(label) has no tracks with audio features in the library."
        case .nothingLeft(let candidates):
            "The filters removed all \(candidates) candidates; loosen a --min-/--max- option."
        }
    }
}

extension TunableAttribute {
    /// The attribute as it appears in option names: `duration-ms`, `time-signature`, `energy`.
    public var optionName: String { rawValue.replacingUnderscores() }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
