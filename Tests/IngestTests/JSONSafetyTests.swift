import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// Bad JSON is refused at its place, with words a user can act on, and never with Foundation's text.
struct JSONSafetyTests {
    /// Writes `text` to `name` in a fresh folder and hands the path and a fresh store to `body`.
    private func withFile<T>(
        _ name: String,
        _ bytes: some Sequence<UInt8>,
        _ body: (String, LibraryStore) throws -> T
    ) throws -> T {
        try withTemporaryDirectory { folder in
            let path = folder + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let store = try LibraryStore(path: folder + "/library.sqlite")
            return try body(path, store)
        }
    }

    private func expectNoFoundationText(_ error: ImportError, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in ["NSCocoaErrorDomain", "Error Domain", "couldn’t be read", "couldn't be read", "not valid JSON"] {
            #expect(!error.description.contains(text), "\(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Syntax

    @Test func aTruncatedStreamingHistoryIsReportedAsTruncatedAndChangesNothing() throws {
        let whole = [UInt8](Fixtures.data("json/StreamingHistory0.json"))
        let cut = whole.count / 2
        let prefix = whole[..<cut]
        let line = prefix.count { $0 == 0x0A } + 1
        try withFile("StreamingHistory0.json", prefix) { path, store in
            _ = try store.importFile(at: Fixtures.path("json/YourLibrary.json"))
            let before = try contentSnapshot(store)
            for options in [ImportOptions(), ImportOptions(format: .streamingHistory)] {
                let error = try #require(throws: ImportError.self) { try store.importFile(at: path, options: options) }
                #expect(error.message.hasPrefix("the JSON is truncated at byte \(cut) (it ends inside "))
                #expect(error.line == line)
                #expect(!error.message.contains("not a format"))
                expectNoFoundationText(error)
            }
            #expect(try contentSnapshot(store) == before)
        }
    }

    @Test func nestingTooDeepIsRefusedWithoutCrashingOrFoundationText() throws {
        try withFile("deep.json", Array(repeating: UInt8(ascii: "["), count: 100_000)) { path, store in
            for options in [ImportOptions(), ImportOptions(format: .spotifyJSON)] {
                let error = try #require(throws: ImportError.self) { try store.importFile(at: path, options: options) }
                #expect(error.message.hasPrefix("the JSON nests deeper than 512 levels at line 1, column 513"))
                #expect(error.line == 1)
                #expect(error.column == 513)
                expectNoFoundationText(error)
            }
            #expect(try count(store, "SELECT count(*) FROM import_runs") == 0)
        }
    }

    // MARK: - Milliseconds played

    static let badMilliseconds = ["9223372036854775807", "9223372036854775808", "1e30", "-5", "1.5", "360000001"]

    @Test(arguments: badMilliseconds)
    func anInvalidMsPlayedIsRefusedNamingTheFieldOrRejectedWithSkipInvalid(_ value: String) throws {
        let json = """
            [{"endTime":"2021-04-22 05:41","artistName":"A","trackName":"B","msPlayed":1000},
             {"endTime":"2021-04-22 05:45","artistName":"A","trackName":"C","msPlayed":\(value)},
             {"endTime":"2021-04-22 05:49","artistName":"A","trackName":"D","msPlayed":360000000}]
            """
        try withFile("StreamingHistory1.json", json.utf8) { path, store in
            let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
            #expect(error.field == "[1].msPlayed")
            #expect(error.message.hasPrefix("expected a whole number of milliseconds from 0 to 360000000"))
            #expect(
                error.message.hasSuffix(
                    ", found \(value == "1e30" ? "1e+30" : value == "9223372036854775808" ? "9.223372036854776e+18" : value)"
                )
            )
            expectNoFoundationText(error)
            #expect(try count(store, "SELECT count(*) FROM plays") == 0)

            let summary = try store.importFile(at: path, options: ImportOptions(skipInvalid: true))
            #expect(summary.playsNew == 2)
            #expect(summary.rowsRejected == 1)
            #expect(summary.rejections.first?.field == "[1].msPlayed")
            #expect(try count(store, "SELECT count(*) FROM plays WHERE ms_played = 360000000") == 1)
        }
    }

    @Test func anExtendedHistoryMsPlayedTooLargeForAnIntIsRefusedNamingTheField() throws {
        let json = """
            [{"ts":"2023-08-07T21:07:25Z","ms_played":1e30,"master_metadata_track_name":"B",
              "master_metadata_album_artist_name":"A","spotify_track_uri":"spotify:track:0r7CVbZTWZgbTCYdfa2P31"}]
            """
        try withFile("Streaming_History_Audio_2023.json", json.utf8) { path, store in
            let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
            #expect(error.field == "[0].ms_played")
            #expect(
                error.message == "expected a whole number of milliseconds from 0 to 360000000 (100 hours), found 1e+30"
            )
        }
    }

    // MARK: - Audio features and durations

    private static func audioFeatures(
        tempo: String = "123.99",
        key: String = "7",
        durationMS: String = "535223"
    )
        -> String
    {
        """
        {"audio_features": [
          {"danceability": 0.5, "energy": 0.6, "key": 1, "loudness": -7.2, "mode": 1, "tempo": 100,
           "id": "2takcwOaAZWiXQijPHIx7B", "duration_ms": 200000, "time_signature": 4},
          {"danceability": 0.808, "energy": 0.626, "key": \(key), "loudness": -12.733, "mode": 1,
           "speechiness": 0.168, "tempo": \(tempo), "id": "4JpKVNYnVcJ8tuMKjAj50A",
           "duration_ms": \(durationMS), "time_signature": 4}
        ]}
        """
    }

    @Test func aTempoOf1e300IsRefusedOrKeptAsMissingWithSkipInvalid() throws {
        try withFile("features.json", Self.audioFeatures(tempo: "1e300").utf8) { path, store in
            let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
            #expect(error.field == "audio_features[1].tempo")
            #expect(error.message == "expected \(AudioFeature.tempo.validRangeDescription), found 1e+300")
            #expect(try count(store, "SELECT count(*) FROM audio_features") == 0)

            let summary = try store.importFile(at: path, options: ImportOptions(skipInvalid: true))
            #expect(summary.featuresWritten == 2)
            #expect(summary.rowsRejected == 0)
            #expect(summary.invalidKeptAsMissing == ["tempo": 1])
            #expect(
                try count(
                    store,
                    "SELECT count(*) FROM audio_features f JOIN tracks t ON t.id = f.track_id WHERE t.spotify_id = '4JpKVNYnVcJ8tuMKjAj50A' AND f.tempo IS NULL AND f.energy = 0.626"
                ) == 1
            )
        }
    }

    @Test(arguments: ["1e300", "7.5", "-9223372036854775809", "12"])
    func anInvalidKeyIsRefusedNamingTheFieldOrKeptAsMissing(_ key: String) throws {
        try withFile("features.json", Self.audioFeatures(key: key).utf8) { path, store in
            let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
            #expect(error.field == "audio_features[1].key")
            #expect(error.message.hasPrefix("expected -1 to 11 (whole numbers), found "))
            expectNoFoundationText(error)

            let summary = try store.importFile(at: path, options: ImportOptions(skipInvalid: true))
            #expect(summary.featuresWritten == 2)
            #expect(summary.invalidKeptAsMissing == ["key": 1])
            #expect(try count(store, "SELECT count(*) FROM audio_features WHERE key IS NULL AND tempo = 123.99") == 1)
        }
    }

    @Test(arguments: ["1e30", "-5", "360000001"])
    func anInvalidDurationIsRefusedOrKeptAsMissing(_ duration: String) throws {
        try withFile("features.json", Self.audioFeatures(durationMS: duration).utf8) { path, store in
            let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
            #expect(error.field == "audio_features[1].duration_ms")
            #expect(error.message.hasPrefix("expected a whole number of milliseconds from 0 to 360000000"))

            let summary = try store.importFile(at: path, options: ImportOptions(skipInvalid: true))
            #expect(summary.featuresWritten == 2)
            #expect(summary.invalidKeptAsMissing == ["duration_ms": 1])
            #expect(try count(store, "SELECT count(*) FROM tracks WHERE duration_ms IS NULL") == 1)
        }
    }

    @Test(arguments: ["1e30", "-1"])
    func aTrackObjectWithAnInvalidDurationIsRefusedOrKeptWithoutIt(_ duration: String) throws {
        var track = String(decoding: Fixtures.data("spotify/get-track.json"), as: UTF8.self)
        track = track.replacingOccurrences(of: "\"duration_ms\": 222200", with: "\"duration_ms\": \(duration)")
        try withFile("track.json", track.utf8) { path, store in
            let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
            #expect(error.field == "duration_ms")
            #expect(error.message.hasPrefix("expected a whole number of milliseconds from 0 to 360000000"))

            let summary = try store.importFile(at: path, options: ImportOptions(skipInvalid: true))
            #expect(summary.tracksNew == 1)
            #expect(summary.invalidKeptAsMissing == ["duration_ms": 1])
            #expect(try count(store, "SELECT count(*) FROM tracks WHERE duration_ms IS NULL") == 1)
        }
    }

    @Test func aReccoBeatsAnswerWithAnInvalidEnergyIsRefusedNamingTheItem() throws {
        let json = """
            {"content": [{"id": "x", "href": "https://open.spotify.com/track/4JpKVNYnVcJ8tuMKjAj50A",
              "energy": 5, "valence": 0.5}]}
            """
        try withFile("reccobeats.json", json.utf8) { path, store in
            let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
            #expect(error.field == "content[0].energy")
            #expect(error.message == "expected 0 to 1, found 5")
            let summary = try store.importFile(at: path, options: ImportOptions(skipInvalid: true))
            #expect(summary.invalidKeptAsMissing == ["energy": 1])
            #expect(try count(store, "SELECT count(*) FROM audio_features WHERE energy IS NULL AND valence = 0.5") == 1)
        }
    }
}

/// The syntax check on its own: exact places for each kind of problem.
struct JSONSyntaxTests {
    @Test func everyJSONFixturePasses() throws {
        let folder = (Fixtures.path("json/StreamingHistory0.json") as NSString).deletingLastPathComponent
        let spotify = (Fixtures.path("spotify/get-track.json") as NSString).deletingLastPathComponent
        var checked = 0
        for directory in [folder, spotify] {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".json") {
                let data = try #require(FileManager.default.contents(atPath: directory + "/" + name))
                #expect(throws: Never.self, "\(name)") { try JSONSyntax.check(data) }
                checked += 1
            }
        }
        #expect(checked >= 20)
    }

    @Test(arguments: [
        #"{"a":[1,-0.5e+10,0,-0,1E-7,true,false,null,"\u00e9\n\"\\\/\b\f\r\t"],"b":{},"c":[]}"#,
        #"  "\uD83D\uDE00"  "#,
        "\u{FEFF}[1]\r\n",
        "1",
        #"["é", "日本", "\u0000"]"#,
        "[1.7976931348623157e308, 5e-324, 2.5e-324, 0e-999]",
        String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
    ])
    func validJSONPasses(_ text: String) throws {
        try JSONSyntax.check(Array(text.utf8))
        // Foundation agrees.
        _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var json: String
        var offset: Int
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { json.count > 40 ? String(json.prefix(40)) + "…" : json }
    }

    static let cases: [Case] = [
        Case(
            json: "[1, 2",
            offset: 5,
            line: 1,
            column: 6,
            message: "the JSON is truncated at byte 5 (it ends inside an array); expected ',' or ']'"
        ),
        Case(
            json: #"{"a": "xy"#,
            offset: 9,
            line: 1,
            column: 10,
            message: #"the JSON is truncated at byte 9 (it ends inside a string); expected '"' to close the string"#
        ),
        Case(
            json: #"{"a": "#,
            offset: 6,
            line: 1,
            column: 7,
            message: "the JSON is truncated at byte 6 (it ends inside an object); expected a value"
        ),
        Case(
            json: "[tru",
            offset: 4,
            line: 1,
            column: 5,
            message: "the JSON is truncated at byte 4 (it ends inside an array); expected 'true'"
        ),
        Case(
            json: "{\n  \"a\": [1,\n    2,,\n  ]\n}",
            offset: 19,
            line: 3,
            column: 7,
            message:
                "unexpected ',' at line 3, column 7; expected a value (an object, array, string, number, true, false or null)"
        ),
        Case(
            json: "[\r\n1,\r\n}",
            offset: 7,
            line: 3,
            column: 1,
            message:
                "unexpected '}' at line 3, column 1; expected a value (an object, array, string, number, true, false or null)"
        ),
        Case(
            json: String(repeating: "[", count: 513),
            offset: 512,
            line: 1,
            column: 513,
            message:
                "the JSON nests deeper than 512 levels at line 1, column 513; expected at most 512 arrays and objects inside one another"
        ),
        Case(
            json: "[1,]",
            offset: 3,
            line: 1,
            column: 4,
            message:
                "unexpected ']' at line 1, column 4; expected a value (an object, array, string, number, true, false or null)"
        ),
        Case(
            json: #"{"a" 1}"#,
            offset: 5,
            line: 1,
            column: 6,
            message: "unexpected '1' at line 1, column 6; expected ':' after the key"
        ),
        Case(
            json: #"{"a":1,}"#,
            offset: 7,
            line: 1,
            column: 8,
            message: "unexpected '}' at line 1, column 8; expected a key in double quotes"
        ),
        Case(
            json: #"["é", x]"#,
            offset: 7,
            line: 1,
            column: 7,
            message:
                "unexpected 'x' at line 1, column 7; expected a value (an object, array, string, number, true, false or null)"
        ),
        Case(
            json: "[1] x",
            offset: 4,
            line: 1,
            column: 5,
            message: "unexpected 'x' at line 1, column 5; expected the end of the file after the JSON value"
        ),
        Case(
            json: #"["\q"]"#,
            offset: 3,
            line: 1,
            column: 4,
            message:
                #"unexpected 'q' at line 1, column 4; expected an escape: \" \\ \/ \b \f \n \r \t or \u and 4 hexadecimal digits"#
        ),
        Case(
            json: "[\"a\u{1B}b\"]",
            offset: 3,
            line: 1,
            column: 4,
            message:
                #"unexpected control character U+001B in a string at line 1, column 4; expected it written as the escape \u001B"#
        ),
        Case(
            json: #"["\uD800x"]"#,
            offset: 8,
            line: 1,
            column: 9,
            message: #"unexpected 'x' at line 1, column 9; expected a low surrogate (\uDC00 to \uDFFF) after \uD800"#
        ),
        Case(
            json: #"["\uDC00"]"#,
            offset: 2,
            line: 1,
            column: 3,
            message:
                #"unexpected \uDC00 at line 1, column 3; expected a high surrogate (\uD800 to \uDBFF) before this low surrogate"#
        ),
        Case(
            json: #"["\u12G4"]"#,
            offset: 6,
            line: 1,
            column: 7,
            message: #"unexpected 'G' at line 1, column 7; expected 4 hexadecimal digits after \u"#
        ),
        Case(
            json: "[1e400]",
            offset: 1,
            line: 1,
            column: 2,
            message:
                "unexpected number 1e400 at line 1, column 2; expected a number a 64-bit float can hold (magnitude at most 1.8e308)"
        ),
        Case(
            json: "[-1e-400]",
            offset: 1,
            line: 1,
            column: 2,
            message:
                "unexpected number -1e-400 at line 1, column 2; expected a number a 64-bit float can hold (it rounds to 0; the smallest is 5e-324)"
        ),
        Case(
            json: "[01]",
            offset: 2,
            line: 1,
            column: 3,
            message:
                "unexpected '1' at line 1, column 3; expected '.', 'e' or the end of the number (a number has no leading zeros)"
        ),
        Case(
            json: "[1.e5]",
            offset: 3,
            line: 1,
            column: 4,
            message: "unexpected 'e' at line 1, column 4; expected a digit after '.'"
        ),
        Case(
            json: "[-]",
            offset: 2,
            line: 1,
            column: 3,
            message: "unexpected ']' at line 1, column 3; expected a digit"
        ),
        Case(
            json: "[NaN]",
            offset: 1,
            line: 1,
            column: 2,
            message:
                "unexpected 'N' at line 1, column 2; expected a value (an object, array, string, number, true, false or null)"
        ),
        Case(
            json: "[\u{7}]",
            offset: 1,
            line: 1,
            column: 2,
            message:
                "unexpected control character U+0007 at line 1, column 2; expected a value (an object, array, string, number, true, false or null)"
        ),
        Case(
            json: "[1]\u{0}",
            offset: 3,
            line: 1,
            column: 4,
            message:
                "unexpected control character U+0000 at line 1, column 4; expected the end of the file after the JSON value"
        ),
        Case(
            json: "[\"a\", ü]",
            offset: 6,
            line: 1,
            column: 7,
            message:
                "unexpected 'ü' (U+00FC) at line 1, column 7; expected a value (an object, array, string, number, true, false or null)"
        ),
    ]

    @Test(arguments: cases)
    func eachProblemIsReportedAtItsPlace(_ example: Case) throws {
        let error = try #require(throws: JSONSyntaxError.self) { try JSONSyntax.check(Array(example.json.utf8)) }
        #expect(error.offset == example.offset)
        #expect(error.line == example.line)
        #expect(error.column == example.column)
        #expect(error.message == example.message)
        // Whatever the check refuses, Foundation refuses too, except trailing commas (which JSON
        // forbids) and 1e-400 (which `JSONSerialization` reads as 0 and `JSONDecoder` refuses).
        if !["[1,]", #"{"a":1,}"#, "[-1e-400]"].contains(example.json) {
            #expect(throws: (any Error).self) {
                try JSONSerialization.jsonObject(with: Data(example.json.utf8), options: [.fragmentsAllowed])
            }
        }
    }

    @Test func theCheckIsFastEnoughForALargeHistory() throws {
        // About 10 MB of plays, the size of a large StreamingHistory file.
        let play =
            #"{"endTime":"2021-04-22 05:41","artistName":"Artist \u00e9","trackName":"Title","msPlayed":123456},"#
        let bytes = Array(("[" + String(repeating: play + "\n", count: 100_000) + "{}]").utf8)
        let clock = ContinuousClock()
        let elapsed = try clock.measure { try JSONSyntax.check(bytes) }
        #expect(elapsed < .seconds(5))
    }
}
