import GRDB

extension LibraryStore {
    /// The tracks among `ids` that are in the reference pool (imported with `--reference`), not in
    /// the user's library: what `recommend` and `playlist build` mark as new to the user.
    ///
    /// - Parameter ids: Track IDs; unknown IDs are left out.
    /// - Returns: The reference tracks among them.
    public func referenceTracks(among ids: some Collection<Int64>) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            var found: Set<Int64> = []
            for chunk in Array(ids).chunked(into: 500) {
                found.formUnion(
                    try Int64.fetchSet(
                        db,
                        sql:
                            "SELECT id FROM tracks WHERE in_library = 0 AND id IN (\(databaseQuestionMarks(count: chunk.count)))",
                        arguments: StatementArguments(Array(chunk))
                    )
                )
            }
            return found
        }
    }
}
