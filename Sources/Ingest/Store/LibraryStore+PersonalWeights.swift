import Features
import Foundation
import GRDB

extension LibraryStore {
    /// The key of the personal weights in `store_about`.
    static let personalWeightsKey = "personal_weights"

    /// The personal similarity weights saved with ``savePersonalWeights(_:)``, or `nil`.
    ///
    /// - Throws: ``StoreError`` when the saved value cannot be read.
    public func personalWeights() throws -> SimilarityWeights? {
        let text = try read { db in
            try String.fetchOne(
                db,
                sql: "SELECT value FROM store_about WHERE key = ?",
                arguments: [Self.personalWeightsKey]
            )
        }
        guard let text else { return nil }
        return try JSONDecoder().decode(SimilarityWeights.self, from: Data(text.utf8))
    }

    /// Saves `weights` as the library's personal similarity weights, replacing any before.
    public func savePersonalWeights(_ weights: SimilarityWeights) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(weights), as: UTF8.self)
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO store_about (key, value) VALUES (?, ?)",
                arguments: [Self.personalWeightsKey, text]
            )
        }
    }

    /// Forgets the personal similarity weights.
    ///
    /// - Returns: Whether there were any.
    @discardableResult
    public func clearPersonalWeights() throws -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM store_about WHERE key = ?", arguments: [Self.personalWeightsKey])
            return db.changesCount > 0
        }
    }
}
