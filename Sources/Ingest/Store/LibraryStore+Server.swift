import GRDB

extension LibraryStore {
    /// A number that changes whenever another connection (another program, or another
    /// `LibraryStore` of this one) has committed a write since the last call.
    ///
    /// SQLite's `PRAGMA data_version`, read on the store's one writing connection: the writes of
    /// that connection itself (the store's own caches) do not change it. A server polls it to
    /// notice an import, a sync or a clustering run made by another command.
    ///
    /// - Throws: ``StoreError`` when the store cannot be read.
    public func dataVersion() throws -> Int {
        try writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
}
