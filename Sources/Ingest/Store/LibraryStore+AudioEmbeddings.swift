import Features
import Foundation
import GRDB

/// The `audio_embeddings` table: what a music tagger's penultimate layer heard in each analysed
/// track (``Features/AudioFileAnalysis/embedding``), for the similarity's embedding block.
///
/// One row per track: the model's name and the vector as little-endian 32-bit floats. An analysis
/// replaces the row of its track (``recordLocalAnalysis(_:of:contentHash:at:)``), and deleting a
/// track deletes it.
extension LibraryStore {
    /// Migration `v21-audio-embeddings`: the `audio_embeddings` table.
    static func createAudioEmbeddings(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE audio_embeddings (
                    track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
                    model TEXT NOT NULL,
                    vector BLOB NOT NULL
                )
                """
        )
    }

    /// Replaces the embedding of `trackID` with `embedding` heard by `model`, or deletes it when
    /// `embedding` is `nil`.
    static func replaceAudioEmbedding(
        _ embedding: [Float]?,
        model: String?,
        of trackID: Int64,
        in db: Database
    ) throws {
        try db.execute(sql: "DELETE FROM audio_embeddings WHERE track_id = ?", arguments: [trackID])
        guard let embedding, let model, !embedding.isEmpty else { return }
        let bytes = embedding.map(\.bitPattern.littleEndian).withUnsafeBytes { Data($0) }
        try db.execute(
            sql: "INSERT INTO audio_embeddings (track_id, model, vector) VALUES (?, ?, ?)",
            arguments: [trackID, model, bytes]
        )
    }

    /// The embeddings of those of `trackIDs` that have one, by track ID: those of the model that
    /// heard the most of them (ties by name), since vectors of two models are not comparable.
    ///
    /// A library without analysed files has none, and the query costs one look at an empty table.
    public func audioEmbeddings(of trackIDs: [Int64]) throws -> [Int64: [Float]] {
        let wanted = Set(trackIDs)
        return try read { db in
            let commonest = try String.fetchOne(
                db,
                sql: "SELECT model FROM audio_embeddings GROUP BY model ORDER BY COUNT(*) DESC, model LIMIT 1"
            )
            guard let model = commonest else { return [:] }
            var vectors: [Int64: [Float]] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT track_id, vector FROM audio_embeddings WHERE model = ?",
                arguments: [model]
            )
            while let row = try rows.next() {
                let id: Int64 = row[0]
                let vector = row[1] as Data?
                guard wanted.contains(id), let bytes = vector, bytes.count % 4 == 0 else { continue }
                vectors[id] = bytes.withUnsafeBytes { raw in
                    (0..<(raw.count / 4)).map {
                        Float(
                            bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))
                        )
                    }
                }
            }
            return vectors
        }
    }
}
