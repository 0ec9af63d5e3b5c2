import Foundation
import Testing

/// The real public datasets in `../shared/data`, present on the developers' machines and in CI,
/// absent from a user's clone.
///
/// Tests that read them take `.enabled(if: SharedData.isAvailable, SharedData.skipReason)`, so
/// they are reported as skipped, with the reason, where the folder is missing.
public enum SharedData {
    /// The `shared/data` folder beside the repository, if it exists.
    public static let directory: String? = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // …/Sources/VibesTestSupport/SharedData.swift → repo
        // `VIBES_SHARED_DATA` names the folder; set to a path that does not exist, it runs the suite
        // as a fresh clone would.
        let candidates =
            ProcessInfo.processInfo.environment["VIBES_SHARED_DATA"].map { [$0] }
            ?? [url.deletingLastPathComponent().appendingPathComponent("shared/data").path]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/README.md") }
    }()

    /// Whether the shared datasets are present.
    public static var isAvailable: Bool { directory != nil }

    /// The reason shown for a skipped test.
    public static let skipReason: Comment = "../shared/data is not present (a user's clone): real-data test skipped"

    /// The path of a file under `shared/data`, such as `tidytuesday-2020-01-21/spotify_songs.csv`.
    public static func path(_ relativePath: String) -> String {
        (directory ?? "/nonexistent/shared/data") + "/" + relativePath
    }
}
