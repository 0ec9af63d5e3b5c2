import Features
import Foundation
import Ingest

/// The bundled sample library, `samples/tidytuesday-sample.csv` (3,000 tracks), read through the
/// real importer.
public enum SampleLibrary {
    /// The path of the CSV in the repository.
    public static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // …/Sources/VibesTestSupport/SampleLibrary.swift → repo
        return url.appendingPathComponent("samples/tidytuesday-sample.csv").path
    }()

    /// The sample's raw features, imported once per test process into a temporary store.
    public static let featureTable: FeatureTable = {
        let folder = NSTemporaryDirectory() + "vibes-sample-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: path)
            return try store.featureTable()
        } catch {
            fatalError("Cannot import the sample library \(path): \(error)")
        }
    }()
}
