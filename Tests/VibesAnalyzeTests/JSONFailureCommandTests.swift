import Foundation
import Ingest
import Testing
import VibesTestSupport

/// Under `--json`, every way a command fails prints exactly one JSON document on stdout: the
/// error object, with the exit status as its code and a message that says what went wrong.
struct JSONFailureCommandTests {
    /// A failing command line; `{db}`, `{folder}` and `{good}` are replaced by a library with a
    /// clustering run and a playlist "bath time ", its folder, and a CSV that imports.
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var status: Int32
        /// Words the message holds.
        var message: String

        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["import", "{good}", "{folder}/bad.csv", "--db", "{db}"], status: 1, message: "bad.csv"),
        Case(arguments: ["import", "{folder}/missing.csv", "--db", "{db}"], status: 1, message: "missing.csv"),
        Case(arguments: ["analyze", "{folder}/missing.flac", "--db", "{db}"], status: 1, message: "missing.flac"),
        Case(arguments: ["library", "--db", "{folder}/none.sqlite"], status: 1, message: "none.sqlite"),
        Case(arguments: ["playlists", "--db", "{folder}/none.sqlite"], status: 1, message: "none.sqlite"),
        Case(arguments: ["playlists", "show", "bath tiem", "--db", "{db}"], status: 1, message: "Did you mean"),
        Case(arguments: ["cluster", "--playlist", "opera", "--db", "{db}"], status: 1, message: "'opera'"),
        Case(arguments: ["cluster", "--db", "{folder}/empty.sqlite"], status: 1, message: "no tracks"),
        Case(arguments: ["vibes", "--run", "99", "--db", "{db}"], status: 1, message: "99"),
        Case(arguments: ["vibes", "zzzz", "--db", "{db}"], status: 1, message: "no vibe called 'zzzz'"),
        Case(arguments: ["recommend", "--vibe", "zzzz", "--db", "{db}"], status: 1, message: "'zzzz'"),
        Case(arguments: ["recommend", "--mood", "chil"], status: 64, message: "chil"),
        Case(arguments: ["playlist", "build", "--vibe", "9", "--db", "{db}"], status: 1, message: "vibe 9"),
        Case(
            arguments: ["playlist", "build", "--playlist", "bath tiem", "--db", "{db}"],
            status: 1,
            message: "Did you mean"
        ),
        Case(arguments: ["playlist", "extend", "opera", "--db", "{db}"], status: 1, message: "'opera'"),
        Case(
            arguments: ["playlist", "reorder", "opera", "--order", "key", "--db", "{db}"],
            status: 1,
            message: "'opera'"
        ),
        Case(arguments: ["report", "--run", "99", "--db", "{db}"], status: 1, message: "99"),
        Case(
            arguments: ["report", "--out", "{folder}/no/such/folder/r.html", "--db", "{db}"],
            status: 1,
            message: "folder"
        ),
        Case(arguments: ["features", "status", "--playlist", "opera", "--db", "{db}"], status: 1, message: "'opera'"),
        Case(arguments: ["eval", "--db", "{folder}/empty.sqlite"], status: 1, message: "no tracks"),
        Case(arguments: ["weights", "show", "--db", "{folder}/none.sqlite"], status: 1, message: "none.sqlite"),
    ]

    /// A library with a run and a playlist, built once through the library (not the tool).
    static func makeLibrary(in folder: String) async throws -> String {
        let db = folder + "/library.sqlite"
        let store = try LibraryStore(path: db)
        let tracks = LibrarySeeding.syntheticTracks(perGroup: 10)
        try LibrarySeeding.insert(tracks, into: store, folder: folder)
        _ = try store.importFile(
            at: try LibrarySeeding.writeExportify(
                Array(tracks.prefix(5)),
                fileName: "bath_time_.csv",
                in: folder
            )
        )
        try await PlaylistsCommandTests.cluster(store, k: 3)
        _ = try LibraryStore(path: folder + "/empty.sqlite")
        try "danceability,energy\nnot,a number\n".write(toFile: folder + "/bad.csv", atomically: true, encoding: .utf8)
        try
            (LibrarySeeding.header.joined(separator: ",")
            + "\n0000000000000000000099,Song,Artist,0.5,0.5,5,-8,1,0.05,0.3,0,0.1,0.5,120\n").write(
                toFile: folder + "/good.csv",
                atomically: true,
                encoding: .utf8
            )
        return db
    }

    @Test(arguments: cases)
    func aFailurePrintsOneJSONErrorDocument(_ failure: Case) async throws {
        try await withTemporaryDirectory { folder in
            let db = try await Self.makeLibrary(in: folder)
            let arguments =
                failure.arguments.map {
                    $0.replacingOccurrences(of: "{db}", with: db).replacingOccurrences(of: "{folder}", with: folder)
                        .replacingOccurrences(of: "{good}", with: folder + "/good.csv")
                } + ["--json"]
            let result = try await CommandLineTool.run(arguments)
            #expect(result.status == failure.status, "\(result.stderr)")
            // One document: the whole of stdout parses as one object.
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                "stdout: \(result.stdout)"
            )
            let error = try #require(object["error"] as? [String: Any], "stdout: \(result.stdout)")
            #expect(error["code"] as? Int == Int(failure.status))
            let message = try #require(error["message"] as? String)
            #expect(!message.isEmpty && message != "failed", "\(message)")
            #expect(message.contains(failure.message), "\(message)")
            #expect(!message.contains("NSCocoaErrorDomain") && !message.contains("Error Domain="), "\(message)")
            #expect(object["schema_version"] as? Int == 2)
            if failure.arguments[0] == "import" && failure.arguments.count > 4 {
                // The file that imported is in the same document.
                #expect((object["files"] as? [Any])?.count == 1)
            }
        }
    }
}
