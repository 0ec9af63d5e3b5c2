/// What a name typed by a person picks out of a list of names: playlists, vibes.
///
/// Names are compared folded (``Track/normalizedName(_:)``: case, accents, punctuation and runs of
/// spaces do not matter, so "Bath Time" finds "bath time "), then by a unique prefix of the folded
/// name; a miss suggests the nearest name by ``editDistance(_:_:)``.
public enum NameMatch: Hashable, Sendable {
    /// The index of the one name meant.
    case found(Int)
    /// The typed text starts several names: their indices, in list order.
    case ambiguous([Int])
    /// Nothing matches; the index of the closest name, when one is near.
    case missing(closest: Int?)

    /// Finds `text` among `names`.
    ///
    /// In order: a name equal to `text` as typed; the first name equal to it folded; the one name
    /// whose folded form starts with it; else the closest name, or the name whose start is
    /// closest, within an edit distance of a third of the folded text (at least 1).
    ///
    /// - Parameters:
    ///   - text: What the person typed.
    ///   - names: The candidates, in the order ties are broken by.
    /// - Complexity: O(*n* · *m*²) for *n* names of about *m* characters, on a miss.
    public init(_ text: String, in names: [String]) {
        if let index = names.firstIndex(of: text) {
            self = .found(index)
            return
        }
        let typed = Track.normalizedName(text)
        let folded = names.map { Track.normalizedName($0) }
        if let index = folded.firstIndex(of: typed) {
            self = .found(index)
            return
        }
        let prefixed = typed.isEmpty ? [] : folded.indices.filter { folded[$0].hasPrefix(typed) }
        // Several names that fold alike ("Chill" and "chill ") are one name, found at its first.
        if let first = prefixed.first, prefixed.allSatisfy({ folded[$0] == folded[first] }) {
            self = .found(first)
            return
        }
        if !prefixed.isEmpty {
            self = .ambiguous(prefixed)
            return
        }
        let limit = Swift.max(1, typed.count / 3)
        // A name or its start of the typed length ("likd" is one edit from "liked songs"' start).
        let scored = folded.indices.map { index in
            let name = folded[index]
            let start = String(name.prefix(typed.count))
            return (
                index: index,
                distance: Swift.min(NameMatch.editDistance(name, typed), NameMatch.editDistance(start, typed))
            )
        }
        let best = scored.min { ($0.distance, $0.index) < ($1.distance, $1.index) }
        self = .missing(closest: best.flatMap { $0.distance <= limit ? $0.index : nil })
    }

    /// The edit distance between two words, by characters, where swapping two neighbours counts as
    /// one edit (optimal string alignment): "biuld" is one edit from "build".
    ///
    /// - Complexity: O(*a* · *b*) for words of *a* and *b* characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = Swift.min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
