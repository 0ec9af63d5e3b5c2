/// A position on the Camelot wheel, the DJ's map of harmonically compatible keys.
///
/// The twelve hours hold the keys a fifth apart (8B is C major, 9B is G major, …); the letter is
/// `A` for minor and `B` for major, and a minor key shares its hour with its relative major (8A is
/// A minor, the relative minor of C major). Moving one hour, or between A and B at the same hour,
/// changes one note of the scale and sounds smooth.
public struct CamelotKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The hour on the wheel, 1…12.
    public let number: Int
    /// Whether the key is major (`B`) rather than minor (`A`).
    public let isMajor: Bool

    /// Creates the Camelot position of a Spotify key and mode.
    ///
    /// - Parameters:
    ///   - pitchClass: Spotify's `key`, 0 (C) … 11 (B); −1 and other values give `nil`.
    ///   - mode: Spotify's `mode`, 1 for major, 0 for minor.
    public init?(pitchClass: Int, mode: Int) {
        guard (0...11).contains(pitchClass), mode == 0 || mode == 1 else { return nil }
        isMajor = mode == 1
        // A minor key shares the hour of its relative major, three semitones up.
        let majorTonic = isMajor ? pitchClass : (pitchClass + 3) % 12
        number = (majorTonic * 7 % 12 + 7) % 12 + 1
    }

    /// Creates a position from its hour and letter.
    public init(number: Int, isMajor: Bool) {
        precondition((1...12).contains(number), "A Camelot hour is 1…12, not \(number).")
        self.number = number
        self.isMajor = isMajor
    }

    /// The notation, such as `8B` or `11A`.
    public var description: String { "\(number)\(isMajor ? "B" : "A")" }

    /// The number of hours between two positions around the wheel, 0…6.
    public func hourDistance(to other: CamelotKey) -> Int {
        let difference = abs(number - other.number)
        return Swift.min(difference, 12 - difference)
    }

    /// How smoothly a mix from this key into `other` sounds, from 0 (clash) to 1 (same key).
    ///
    /// Same key 1; one hour either way or the relative major/minor 0.9 (the classic harmonic
    /// mixing moves); one hour and a letter change 0.6; two hours (an energy boost) 0.5; further
    /// falls to 0 at the opposite side of the wheel.
    public func smoothness(to other: CamelotKey) -> Double {
        let hours = hourDistance(to: other)
        let sameLetter = isMajor == other.isMajor
        switch (hours, sameLetter) {
        case (0, true): return 1
        case (0, false), (1, true): return 0.9
        case (1, false): return 0.6
        case (2, true): return 0.5
        default: return Swift.max(0, 0.4 - 0.1 * Double(hours - 2) - (sameLetter ? 0 : 0.1))
        }
    }

    public static func < (lhs: CamelotKey, rhs: CamelotKey) -> Bool {
        (lhs.number, lhs.isMajor ? 1 : 0) < (rhs.number, rhs.isMajor ? 1 : 0)
    }
}
