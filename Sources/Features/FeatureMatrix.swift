/// The rows of a library in feature space: one row per track, one column per feature column.
///
/// The row order is the order of ``trackIDs``, the store's track row IDs, so a result computed
/// on row *i* belongs to track `trackIDs[i]`.
public struct FeatureMatrix: Sendable {
    /// The feature values, one track per row.
    public var values: Matrix
    /// The store's track ID of each row.
    public var trackIDs: [Int64]
    /// The name of each column, such as `energy` or `key_sin`.
    public var columnNames: [String]

    public init(values: Matrix, trackIDs: [Int64], columnNames: [String]) {
        precondition(values.rowCount == trackIDs.count, "Every row needs exactly one track ID.")
        precondition(values.columnCount == columnNames.count, "Every column needs exactly one name.")
        self.values = values
        self.trackIDs = trackIDs
        self.columnNames = columnNames
    }

    /// The number of tracks.
    public var rowCount: Int { values.rowCount }
    /// The number of feature columns.
    public var columnCount: Int { values.columnCount }
}
