import Foundation
import GRDB
import Ingest
import Testing
import VibesTestSupport

/// Spotify's data export imported as it comes: a zip or a folder, every known file inside, the
/// rest skipped with a note, and nothing unpacked outside a private temporary folder.
struct SpotifyExportArchiveTests {
    /// The account-data files of an export, with two it does not import.
    static let accountData: [ZipFixture.Entry] = [
        .fixture("Spotify Account Data/StreamingHistory0.json", "json/StreamingHistory0.json"),
        .fixture("Spotify Account Data/YourLibrary.json", "json/YourLibrary.json"),
        .fixture("Spotify Account Data/Playlist1.json", "json/Playlist1.json"),
        .file("Spotify Account Data/Userdata.json", Data(#"{"username": "someone"}"#.utf8)),
        .file("Spotify Account Data/ReadMeFirst_AccountData.pdf", Data("%PDF-1.4".utf8)),
        .fixture(
            "Spotify Extended Streaming History/Streaming_History_Audio_2023-2024_0.json",
            "json/Streaming_History_Audio_2023-2024_0.json"
        ),
        .file("Spotify Extended Streaming History/Streaming_History_Video_2023.json", Data("[]".utf8)),
        .fixture("Exportify/Liked_Songs.csv", "exportify/Liked_Songs.csv"),
        .file("Exportify/notes.csv", Data("when,what\n2024,hello\n".utf8)),
        .file("__MACOSX/Spotify Account Data/._StreamingHistory0.json", Data("junk".utf8)),
    ]

    static func importRuns(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT path FROM import_runs ORDER BY id")
        }
    }

    @Test func aZipIsImportedFileByFileAndTheRestIsSkippedWithANote() throws {
        try withTemporaryDirectory { directory in
            let zip = directory + "/my_spotify_data.zip"
            try ZipFixture.write(Self.accountData, to: zip)
            #expect(SpotifyExportArchive.isExport(zip))
            #expect(!SpotifyExportArchive.isExport(Fixtures.path("json/YourLibrary.json")))
            let store = try LibraryStore(path: directory + "/library.sqlite")
            let result = try store.importSpotifyExport(at: zip)
            #expect(result.failures.isEmpty, "\(result.failures)")
            // CSVs and playlists first, then the library, then plays.
            #expect(
                result.files.map(\.path) == [
                    "my_spotify_data.zip/Exportify/Liked_Songs.csv",
                    "my_spotify_data.zip/Spotify Account Data/Playlist1.json",
                    "my_spotify_data.zip/Spotify Account Data/YourLibrary.json",
                    "my_spotify_data.zip/Spotify Extended Streaming History/Streaming_History_Audio_2023-2024_0.json",
                    "my_spotify_data.zip/Spotify Account Data/StreamingHistory0.json",
                ]
            )
            #expect(
                result.files.map(\.format) == [
                    .exportify, .accountPlaylists, .yourLibrary, .extendedHistory, .streamingHistory,
                ]
            )
            #expect(result.files.allSatisfy { $0.status == .imported })
            #expect(
                Set(result.skipped.map(\.name)) == [
                    "Spotify Account Data/Userdata.json", "Spotify Account Data/ReadMeFirst_AccountData.pdf",
                    "Spotify Extended Streaming History/Streaming_History_Video_2023.json", "Exportify/notes.csv",
                ]
            )
            #expect(result.notes.contains { $0.contains("Userdata.json: account data vibes-analyze does not import") })
            // The runs name the file inside the archive, never the temporary copy.
            #expect(
                try Self.importRuns(directory + "/library.sqlite").allSatisfy { $0.hasPrefix("my_spotify_data.zip/") }
            )
            // Importing the same export again changes nothing.
            let again = try store.importSpotifyExport(at: zip)
            #expect(again.files.allSatisfy { $0.status == .unchanged })
        }
    }

    @Test func aFolderOfTheExportIsImportedInPlace() throws {
        try withTemporaryDirectory { directory in
            let folder = directory + "/my_spotify_data"
            for entry in Self.accountData {
                let path = folder + "/" + entry.path
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent,
                    withIntermediateDirectories: true
                )
                try entry.data.write(to: URL(fileURLWithPath: path))
            }
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/StreamingHistory9.json",
                withDestinationPath: "/etc/passwd"
            )
            let store = try LibraryStore(path: directory + "/library.sqlite")
            let result = try store.importSpotifyExport(at: folder)
            #expect(result.files.count == 5 && result.failures.isEmpty, "\(result.failures)")
            #expect(result.skipped.contains { $0.name == "StreamingHistory9.json" && $0.reason.contains("link") })
            #expect(result.files.first?.path == "my_spotify_data/Exportify/Liked_Songs.csv")
        }
    }

    @Test func hostileEntriesNeverLeaveTheTemporaryFolder() throws {
        try withTemporaryDirectory { directory in
            let zip = directory + "/hostile.zip"
            let history = Fixtures.data("json/StreamingHistory0.json")
            try ZipFixture.write(
                [
                    .file("../../escaped/StreamingHistory0.json", history),
                    .file(directory + "/absolute/StreamingHistory1.json", history),
                    .file("bomb/StreamingHistory2.json", Data(count: 8 << 20)),
                    .link("StreamingHistory3.json", to: "/etc/passwd"),
                    .file("nested/other.zip", Data("PK".utf8)),
                ],
                to: zip
            )
            let export = try SpotifyExportArchive.open(zip)
            defer { export.remove() }
            let temporary = FileManager.default.temporaryDirectory.path
            #expect(export.members.count == 2)
            for member in export.members {
                #expect(member.path.hasPrefix(temporary + "/vibes-export-"))
                #expect(!member.path.contains("..") && !member.path.dropFirst(temporary.count).contains("absolute"))
                #expect(FileManager.default.contents(atPath: member.path) == history)
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/../escaped"))
            #expect(!FileManager.default.fileExists(atPath: directory + "/absolute"))
            #expect(
                export.skipped.contains { $0.name == "bomb/StreamingHistory2.json" && $0.reason.contains("zip bomb") }
            )
            #expect(export.skipped.contains { $0.name == "StreamingHistory3.json" && $0.reason.contains("link") })
            #expect(export.skipped.contains { $0.name == "nested/other.zip" && $0.reason.contains("archive inside") })
            export.remove()
            #expect(export.members.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
        }
    }

    @Test func aForgedSizeAndTooManyEntriesAreRefused() throws {
        try withTemporaryDirectory { directory in
            let forged = directory + "/forged.zip"
            try ZipFixture.write(
                [
                    .file("StreamingHistory0.json", Data(String(repeating: "[]  ", count: 50_000).utf8)),
                    .fixture("YourLibrary.json", "json/YourLibrary.json"),
                ],
                to: forged
            )
            try ZipFixture.forgeUncompressedSize(of: forged, to: 100)
            let export = try SpotifyExportArchive.open(forged)
            defer { export.remove() }
            #expect(export.members.map(\.name) == ["YourLibrary.json"])
            #expect(
                export.skipped.first?.reason.contains("more than the 100 bytes it declares") == true,
                "\(export.skipped)"
            )

            let crowded = directory + "/crowded.zip"
            try ZipFixture.write((0..<6).map { .file("Playlist\($0).json", Data("{}".utf8)) }, to: crowded)
            var limits = SpotifyExportArchive.Limits()
            limits.maximumEntries = 5
            #expect(throws: ImportError.self) { try SpotifyExportArchive.open(crowded, limits: limits) }

            let empty = directory + "/empty.zip"
            try ZipFixture.write([.file("Userdata.json", Data("{}".utf8))], to: empty)
            #expect {
                try SpotifyExportArchive.open(empty)
            } throws: { error in
                (error as? ImportError)?.message.contains("holds no file vibes-analyze imports") == true
            }
        }
    }
}
