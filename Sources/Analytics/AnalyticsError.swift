/// An error of an analysis: the input cannot support what was asked of it.
public enum AnalyticsError: Error, CustomStringConvertible {
    /// A vector has the wrong number of features.
    case dimensionMismatch(expected: Int, actual: Int)
    /// Fewer samples than the analysis needs, such as fewer tracks than clusters.
    case tooFewSamples(required: Int, available: Int, what: String)
    /// A value of the input matrix is `NaN` or infinite.
    case nonFiniteValue(row: Int, column: Int)
    /// A parameter is outside the range the analysis accepts.
    case invalidParameter(name: String, value: String, expected: String)
    /// A similarity space uses a signal derived from the label it is evaluated on, so its figure
    /// would partly measure the label itself.
    case labelLeak(space: String, signal: String, label: String)
    /// Too few playlists to learn weights from or grade on held-out playlists.
    case tooFewPlaylists(eligible: Int, required: Int, minimumLength: Int)

    public var description: String {
        switch self {
        case .dimensionMismatch(let expected, let actual):
            "Expected \(expected) features per track, got \(actual)."
        case .tooFewSamples(let required, let available, let what):
            "\(what) needs at least \(required) tracks with features, but the library has \(available)."
        case .nonFiniteValue(let row, let column):
            "The feature matrix holds a missing or infinite value at row \(row), column \(column); "
                + "build it with FeatureSchema.makeSpace(from:), which leaves such tracks out."
        case .invalidParameter(let name, let value, let expected):
            "\(name) must be \(expected) (got \(value))."
        case .labelLeak(let space, let signal, let label):
            "The similarity \"\(space)\" uses \(signal), which is derived from the \(label) label it would be "
                + "evaluated on; evaluate it on another label, or without that signal."
        case .tooFewPlaylists(let eligible, let required, let minimumLength):
            "Only \(eligible) playlist\(eligible == 1 ? "" : "s") with at least \(minimumLength) tracks with features "
                + "(catch-alls left out); learning weights needs \(required). The default weights stay."
        }
    }
}
