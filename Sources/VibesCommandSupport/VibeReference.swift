import Features
import Foundation

/// A vibe as a person names it on the command line: its number as `vibes` prints it (1 for the
/// largest) or its name, matched as ``NameMatch`` matches (case and spaces aside, a unique start,
/// "did you mean" on a miss).
package struct VibeReference: Hashable, Sendable, CustomStringConvertible {
    /// What was typed.
    package var text: String

    package init(_ text: String) {
        self.text = text
    }

    package var description: String { text }

    /// The index (0 for vibe 1) of the vibe meant among `names`, the run's vibe names in `vibes`
    /// order.
    ///
    /// - Parameter runID: The run, named in the message of a miss.
    /// - Throws: ``CommandFailure`` saying which numbers the run has, or which names are near.
    package func index(in names: [String], runID: Int64) throws -> Int {
        if let number = Int(text.trimmingCharacters(in: .whitespaces)) {
            guard (1...Swift.max(1, names.count)).contains(number), !names.isEmpty else {
                throw CommandFailure("Run \(runID) has vibes 1 to \(names.count); vibe \(number) is not one of them.")
            }
            return number - 1
        }
        switch NameMatch(text, in: names) {
        case .found(let index):
            return index
        case .ambiguous(let indices):
            let listed = indices.prefix(5).map { "\($0 + 1) '\(names[$0])'" }.joined(separator: ", ")
            throw CommandFailure(
                "'\(text)' starts the names of several vibes of run \(runID) (\(listed)); give more of the name or its number."
            )
        case .missing(let closest):
            throw CommandFailure(
                "Run \(runID) has no vibe called '\(text)'."
                    + (closest.map { " Did you mean '\(names[$0])' (vibe \($0 + 1))?" }
                        ?? " `vibes-analyze vibes` lists its vibes by number and name.")
            )
        }
    }
}
