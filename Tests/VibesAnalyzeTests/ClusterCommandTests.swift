import Foundation
import Ingest
import Testing
import VibesTestSupport

/// What the built `cluster` says when it has nothing to do; its options are tested in
/// `ClusterCommandParsingTests` and the clustering in `LibraryStoreVibeClusteringTests`.
struct ClusterCommandTests {
    @Test func emptyLibraryIsARuntimeError() async throws {
        await withTemporaryDirectory { folder in
            let path = folder + "/empty.sqlite"
            _ = try? LibraryStore(path: path)  // a library with nothing in it (reading commands make none)
            let result = try? await CommandLineTool.run(["cluster", "--db", path, "--k", "3"])
            #expect(result?.status == 1)
            #expect(result?.stderr.contains("no tracks with audio features to cluster") == true)
            #expect(result?.stderr.contains("features status") == true)
        }
    }
}
