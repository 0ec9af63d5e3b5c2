import Features
import Foundation

/// A vibe as a person names it: its number as `vibes` prints it (1 for the largest) or its name,
/// matched as ``NameMatch`` matches (case and spaces aside, a unique start, "did you mean" on a
/// miss).
public struct VibeReference: Hashable, Sendable, CustomStringConvertible {
    /// What was typed.
    public var text: String

    public init(_ text: String) {
        self.text = text
    }

    public var description: String { text }

    /// The index (0 for vibe 1) of the vibe meant among `names`, the run's vibe names in `vibes`
    /// order.
    ///
    /// - Parameter runID: The run, named in the error of a miss.
    /// - Throws: ``EngineError/vibeNumberOutOfRange(number:vibeCount:runID:)``,
    ///   ``EngineError/ambiguousVibe(text:runID:candidates:)`` or
    ///   ``EngineError/noSuchVibe(text:runID:closest:)``.
    public func index(in names: [String], runID: Int64) throws -> Int {
        if let number = Int(text.trimmingCharacters(in: .whitespaces)) {
            guard (1...Swift.max(1, names.count)).contains(number), !names.isEmpty else {
                throw EngineError.vibeNumberOutOfRange(number: number, vibeCount: names.count, runID: runID)
            }
            return number - 1
        }
        switch NameMatch(text, in: names) {
        case .found(let index):
            return index
        case .ambiguous(let indices):
            throw EngineError.ambiguousVibe(
                text: text,
                runID: runID,
                candidates: indices.map { .init(number: $0 + 1, name: names[$0]) }
            )
        case .missing(let closest):
            throw EngineError.noSuchVibe(
                text: text,
                runID: runID,
                closest: closest.map { .init(number: $0 + 1, name: names[$0]) }
            )
        }
    }
}
