import Analytics
import Features
import Foundation
import Testing
import VibesTestSupport

struct PlaylistExportTests {
    static let playlist = Playlist(
        name: "Night \"drive\"",
        description: "From calm to energetic",
        entries: [
            Playlist.Entry(
                trackID: 1,
                spotifyID: SpotifyID("2uuJs2nltcYFh9pkKP7bW4"),
                name: "Show Me",
                artists: ["Joey Bada$$"],
                album: "2000",
                durationMS: 220_386,
                popularity: 70,
                features: AudioFeatures(
                    danceability: 0.599,
                    energy: 0.646,
                    key: 6,
                    loudness: -6.326,
                    mode: 1,
                    speechiness: 0.337,
                    acousticness: 0.222,
                    instrumentalness: 0.00000436,
                    liveness: 0.128,
                    valence: 0.638,
                    tempo: 176.153,
                    timeSignature: 4
                )
            ),
            Playlist.Entry(
                trackID: 2,
                spotifyID: nil,
                name: "Demo, take 2",
                artists: ["SamRecks", "Ryu, The Runner"],
                durationMS: 147_555,
                isLocked: true
            ),
        ],
        transitionScore: 0.7
    )

    @Test func m3uHasExtinfLinesAndSpotifyURIs() throws {
        let text = try PlaylistExport.text(of: PlaylistExportTests.playlist, as: .m3u)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0] == "#EXTM3U")
        #expect(lines.contains("#EXTINF:220,Joey Bada$$ - Show Me"))
        #expect(lines.contains("spotify:track:2uuJs2nltcYFh9pkKP7bW4"))
        #expect(lines.contains("#EXTINF:148,SamRecks, Ryu, The Runner - Demo, take 2"))
        #expect(lines.last == "# local track 2: not on Spotify")
    }

    @Test func csvHasExportifyColumnsAndParsesBack() throws {
        let text = try PlaylistExport.text(of: PlaylistExportTests.playlist, as: .csv)
        let records = TidyTuesdaySongs.parseCSV(text)
        #expect(records.count == 3)
        #expect(records[0] == PlaylistExport.exportifyColumns)
        #expect(records.allSatisfy { $0.count == 24 })
        #expect(records[1][0] == "spotify:track:2uuJs2nltcYFh9pkKP7bW4")
        #expect(records[2][3] == "SamRecks;Ryu, The Runner")
        #expect(Double(records[1][19]) == 0.00000436)
        #expect(records[1][12] == "0.599" && records[1][15] == "-6.326")
        #expect(records[1][14] == "6" && records[1][23] == "4")
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
    func csvHeaderIsExactlyExportifys() throws {
        let path = SharedData.path("spotify-api/exports/exportify/kofort9-mymusic/Liked_Songs.csv")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let header = TidyTuesdaySongs.parseCSV(String(text.prefix { $0 != "\n" }))[0]
        #expect(header.map { $0.replacingOccurrences(of: "\u{FEFF}", with: "") } == PlaylistExport.exportifyColumns)
    }

    @Test func jsonRoundTrips() throws {
        let text = try PlaylistExport.text(of: PlaylistExportTests.playlist, as: .json)
        let decoded = try JSONDecoder().decode(Playlist.self, from: Data(text.utf8))
        #expect(decoded == PlaylistExportTests.playlist)
        #expect(decoded.spotifyTrackURIs == ["spotify:track:2uuJs2nltcYFh9pkKP7bW4"])
    }
}
