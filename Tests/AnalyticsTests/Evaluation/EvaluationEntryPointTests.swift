import Analytics
import Features
import Testing

/// The library entry points `eval` calls: playlists for an ordering evaluation, and k-means
/// against labels.
struct EvaluationEntryPointTests {
    @Test func playlistsAreGroupedByNameAndKeptByLength() {
        var labels: [Int64: Set<String>] = [:]
        for id in Int64(1)...12 { labels[id, default: []].insert("Long") }
        for id in Int64(3)...5 { labels[id, default: []].insert("Short") }
        for id in Int64(20)...31 { labels[id, default: []].insert("Another") }
        let (kept, skipped) = OrderingComparison.playlists(from: labels, lengths: 10...500)
        #expect(kept.map(\.name) == ["Another", "Long"])
        #expect(kept[1].trackIDs == Array(1...12))
        #expect(skipped == 1)
    }

    @Test func kMeansOnSeparatedGroupsAgreesWithTheirLabels() async throws {
        // Two tight groups far apart, labelled by group; one per distinct label by default.
        var values: [Float] = []
        var labels: [Int64: Set<String>] = [:]
        for id in Int64(1)...40 {
            let group = id <= 20 ? 0 : 1
            values += [Float(group) * 10 + Float(id % 5) * 0.01, Float(id % 3) * 0.01]
            labels[id] = [group == 0 ? "a" : "b"]
        }
        let matrix = FeatureMatrix(
            values: Matrix(rowCount: 40, columnCount: 2, elements: values),
            trackIDs: Array(1...40),
            columnNames: ["x", "y"]
        )
        let result = try #require(try await ClusterAgreement.ofKMeans(in: matrix, labels: labels, seed: 3))
        #expect(result.clusterCount == 2)
        #expect(abs(result.agreement.normalizedMutualInformation - 1) < 1e-9)
        let none = try await ClusterAgreement.ofKMeans(in: matrix, labels: labels.mapValues { _ in ["a"] }, seed: 3)
        #expect(none == nil)
    }
}
