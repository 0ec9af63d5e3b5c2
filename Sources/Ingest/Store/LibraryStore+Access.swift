import GRDB

// MARK: - Reading and writing

extension LibraryStore {
    /// Runs `body` on a reading connection, in one transaction that sees one state of the store.
    ///
    /// Every read of the store goes through here, so that SQLite's failures (a damaged page, an
    /// I/O error, a store another program holds) come out as a ``StoreError`` naming this store's
    /// file; errors `body` throws itself pass through unchanged.
    ///
    /// - Throws: ``StoreError`` for a database failure, or what `body` throws.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try withStoreErrors { try database.read(body) }
    }

    /// Runs `body` on a reading connection without blocking the caller's thread.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withStoreErrors { try await database.read(body) }
    }

    /// Runs `body` on the writing connection, in one transaction: all of it lands, or none.
    ///
    /// - Throws: ``StoreError`` for a database failure (a write lock held past
    ///   ``Options/writeWait`` is ``StoreError/busy(path:holder:)``), or what `body` throws.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try withStoreErrors { try database.write(body) }
    }

    /// Runs `body` on the writing connection, in one transaction, without blocking the caller's
    /// thread.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withStoreErrors { try await database.write(body) }
    }

    /// Runs `body` on the writing connection outside a transaction, for the settings SQLite
    /// changes only there (`PRAGMA temp_store`, `foreign_keys`, `VACUUM`).
    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try withStoreErrors { try database.writeWithoutTransaction(body) }
    }

    /// Runs `body`, turning a ``GRDB/DatabaseError`` it throws into a ``StoreError`` naming this
    /// store's file.
    func withStoreErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// Runs `body`, turning a ``GRDB/DatabaseError`` it throws into a ``StoreError`` naming this
    /// store's file.
    func withStoreErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }
}
