import Features
import Testing

struct NameMatchTests {
    /// Names as Exportify file names leave them: trailing spaces, capitals, near neighbours.
    static let names = ["bath time ", "Bass Music", "Chill", "chill ", "Road Trip 2019", "Road Trip 2020", "Café"]

    @Test(arguments: [
        ("bath time ", 0),  // as stored
        ("bath time", 0),  // without the trailing space
        ("BATH  TIME", 0),  // case and runs of spaces
        ("bat", 0),  // a unique start
        ("bass", 1),
        ("chill", 2),  // two names that fold alike are one name, found at its first
        ("cafe", 6),  // accents aside
        ("road trip 2020", 5),
    ])
    func findsTheNameMeant(typed: String, index: Int) {
        #expect(NameMatch(typed, in: Self.names) == .found(index))
    }

    @Test func aStartSharedBySeveralNamesIsAmbiguous() {
        #expect(NameMatch("ba", in: Self.names) == .ambiguous([0, 1]))
        #expect(NameMatch("road trip", in: Self.names) == .ambiguous([4, 5]))
    }

    @Test func aMissSuggestsTheClosestNameWhenItIsNear() {
        #expect(NameMatch("bath tiem", in: Self.names) == .missing(closest: 0))
        #expect(NameMatch("chlil", in: Self.names) == .missing(closest: 2))
        #expect(NameMatch("opera", in: Self.names) == .missing(closest: nil))
        // A slip in the start of a name.
        #expect(NameMatch("raod", in: Self.names) == .missing(closest: 4))
        #expect(NameMatch("anything", in: []) == .missing(closest: nil))
    }

    @Test(arguments: [("build", "biuld", 1), ("kitten", "sitting", 3), ("", "abc", 3), ("same", "same", 0)])
    func editDistanceCountsEdits(a: String, b: String, distance: Int) {
        #expect(NameMatch.editDistance(a, b) == distance)
        #expect(NameMatch.editDistance(b, a) == distance)
    }
}
