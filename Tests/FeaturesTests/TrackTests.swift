import Features
import Testing

struct TrackTests {
    @Test func matchKeysIgnoreCaseDiacriticsAndPunctuation() {
        #expect(
            Track.matchKey(artist: "Tiësto", title: "Red Lights")
                == Track.matchKey(artist: "TIESTO", title: "red  lights!")
        )
        #expect(Track.normalizedName("Beyoncé – Halo (Live)") == "beyonce halo live")
        #expect(Track.normalizedName("  A$AP   Rocky ") == "a ap rocky")
        #expect(Track.matchKey(artist: "A", title: "B C") != Track.matchKey(artist: "A B", title: "C"))
    }

    @Test(arguments: [
        "Travesuras - Remix", "Travesuras (feat. Ozuna)", "TRAVESURAS [Remastered 2019]",
        "Travesuras - Live at the Roxy - 1999", "Travesuras {Radio Edit}",
    ])
    func versionsOfOneSongShareItsKey(_ title: String) {
        #expect(
            Track.songKey(artist: "Nio García", title: title)
                == Track.songKey(artist: "Nio Garcia", title: "Travesuras")
        )
    }

    @Test func differentSongsAndArtistsKeepDifferentKeys() {
        let key = Track.songKey(artist: "Nio García", title: "Travesuras")
        #expect(Track.songKey(artist: "Nio García", title: "Te Boté") != key)
        #expect(Track.songKey(artist: "Someone Else", title: "Travesuras") != key)
    }

    @Test func aTitleMadeOnlyOfBracketsKeepsItsText() {
        let untitled = Track.songKey(artist: "Artist", title: "(Untitled)")
        #expect(untitled.hasSuffix("\u{1F}untitled"))
        #expect(untitled != Track.songKey(artist: "Artist", title: "[Intro]"))
    }

    @Test func theMatchKeyStillTellsVersionsApart() {
        #expect(Track.matchKey(artist: "A", title: "Song - Remix") != Track.matchKey(artist: "A", title: "Song"))
    }

    @Test(arguments: [
        ("One More Time", "daft punk\u{1F}one more time"),
        ("One More Time (Radio Edit)", "daft punk\u{1F}one more time"),
        ("One More Time - Remastered 2021", "daft punk\u{1F}one more time"),
        ("One More Time [Live] (Edit) - 2001 Mix", "daft punk\u{1F}one more time"),
        ("(Intro)", "daft punk\u{1F}intro"),
        ("Harder, Better, Faster, Stronger", "daft punk\u{1F}harder better faster stronger"),
    ])
    func songKeyDropsVersionsInBracketsAndAfterADash(title: String, expected: String) {
        #expect(Track.songKey(artist: "Daft Punk", title: title) == expected)
        // The same title with one accented letter takes the general path and agrees.
        let accented = title.replacingOccurrences(of: "e", with: "é")
        #expect(Track.songKey(artist: "Daft Punk", title: accented) == expected)
    }
}
