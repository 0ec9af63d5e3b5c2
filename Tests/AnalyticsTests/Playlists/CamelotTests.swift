import Analytics
import Testing

struct CamelotTests {
    // The Camelot wheel as published by Mixed In Key (8B = C major, 8A = A minor, one hour = a fifth).
    @Test(arguments: [
        (0, 1, "8B"), (9, 0, "8A"), (7, 1, "9B"), (4, 0, "9A"), (11, 1, "1B"), (5, 1, "7B"),
        (1, 1, "3B"), (5, 0, "4A"), (2, 0, "7A"), (6, 1, "2B"),
    ])
    func mapsSpotifyKeyAndModeToTheWheel(pitchClass: Int, mode: Int, expected: String) throws {
        let key = try #require(CamelotKey(pitchClass: pitchClass, mode: mode))
        #expect(key.description == expected)
    }

    @Test func rejectsUndetectedKeys() {
        #expect(CamelotKey(pitchClass: -1, mode: 1) == nil)
        #expect(CamelotKey(pitchClass: 3, mode: 2) == nil)
    }

    @Test func harmonicMovesAreSmootherThanDistantOnes() throws {
        let c = CamelotKey(number: 8, isMajor: true)
        let same = c.smoothness(to: c)
        let fifth = c.smoothness(to: CamelotKey(number: 9, isMajor: true))
        let fourth = c.smoothness(to: CamelotKey(number: 7, isMajor: true))
        let relative = c.smoothness(to: CamelotKey(number: 8, isMajor: false))
        let diagonal = c.smoothness(to: CamelotKey(number: 9, isMajor: false))
        let tritone = c.smoothness(to: CamelotKey(number: 2, isMajor: true))
        #expect(same == 1)
        #expect(fifth == fourth && fifth == relative)
        #expect(fifth > diagonal && diagonal > tritone)
        // The wheel wraps: 12 and 1 are neighbours.
        #expect(CamelotKey(number: 12, isMajor: false).hourDistance(to: CamelotKey(number: 1, isMajor: false)) == 1)
    }
}
