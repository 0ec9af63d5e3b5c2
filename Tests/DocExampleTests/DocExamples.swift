// Every ```swift example of the documentation, verbatim, in a function whose parameters are the
// values the example takes as given. `DocSnippetTests` checks that each example of the doc
// comments, the DocC articles and the README is here, so the test build compiles them all.
// The functions are compiled, not run, except `readmeExample` (run by `DocSnippetTests`).

import Analytics
import AudioAnalysis
import Features
import Foundation
import Ingest
import SpotifyTestSupport
import SpotifyTokenServer
import SpotifyWebAPI
import VibesBenchmarking
import VibesHTTP
import VibesServer
import VibesTestSupport

// MARK: - README

func readmeExample() async throws -> VibeClustering.Outcome {
    let store = try LibraryStore(path: "library.sqlite")
    _ = try store.importFile(at: "samples/tidytuesday-sample.csv")
    let settings = VibeClustering.Settings(schema: .default, clusterCount: .fixed(6))
    let outcome = try await VibeClustering.cluster(try store.featureTable(), settings: settings)
    for vibe in outcome.vibes { print(vibe.profile.name, vibe.profile.size) }
    return outcome
}

// MARK: - Features

func splitMix64Example() {
    var rng = SplitMix64(seed: 42)
    let first = rng.next()
    _ = first
}

func normalScoreTableExample() {
    let table = NormalScoreTable(fitting: [0.1, 0.2, 0.3, 0.4, 0.5])
    table.score(of: 0.3)  // 0
    table.score(of: 0.5)  // Φ⁻¹(0.9) ≈ 1.2816
}

func featureSchemaExample(table: FeatureTable) throws {
    let schema = try FeatureSchema(features: [.energy, .valence, .tempo], weights: [.tempo: 0.5])
    let space = schema.makeSpace(from: table)
    _ = space
}

func featureSchemaParsingExample() throws {
    let schema = try FeatureSchema(parsing: "energy, valence, tempo", weights: ["tempo=0.5"], scaling: .zScore)
    _ = schema
}

func playlistExample(spotify: SpotifyClient, playlist: Playlist) async throws {
    let created = try await spotify.createPlaylist(name: playlist.name, description: playlist.description)
    if let id = SpotifyID(created.id) {
        _ = try await spotify.addItems(playlist.spotifyTrackURIs, to: id)
    }
}

// MARK: - Analytics

func analyticsOverviewExample(store: LibraryStore) async throws {
    let table = try store.featureTable()
    var settings = VibeClustering.Settings(schema: .default, clusterCount: .best(among: 4...12))
    settings.seed = 42
    let outcome = try await VibeClustering.cluster(table, settings: settings)
    for vibe in outcome.vibes { print(vibe.profile.name, vibe.profile.size) }

    let space = FeatureSchema.default.makeSpace(from: table)
    var rng = SplitMix64(seed: 42)
    let scan = try await KMeans.fitChoosingClusterCount(space.matrix.values, among: 4...12, using: &rng)
    let vibes = VibeNames.profiles(
        table: table,
        tableRows: space.tableRows,
        labels: scan.model.labels,
        clusterCount: scan.chosenClusterCount
    )
    _ = vibes
}

func kMeansExample(space: FeatureSpace) async throws {
    var rng = SplitMix64(seed: 42)
    let model = try await KMeans.fit(space.matrix.values, clusterCount: 8, using: &rng)
    _ = model
}

func pairedBootstrapExample(toolHitRates: [Double], baselineHitRates: [Double]) {
    let interval = PairedBootstrap.meanDifference(toolHitRates, baselineHitRates, seed: 42)
    print(interval.estimate, interval.lower, interval.upper)
}

func retrievalComparisonExample(recommender: Recommender, labels: [Int64: Set<String>]) async throws {
    let comparison = try await RetrievalComparison.measure(
        subject: recommender.similaritySpace,
        baselines: SimilaritySpace.naiveBaselines(for: recommender.table),
        labels: labels,
        label: .genre
    )
    _ = comparison
}

func playlistBuilderExample(recommender: Recommender) throws {
    let builder = PlaylistBuilder(recommender: recommender)
    let ids = try builder.moodPath(from: .calm, to: .energetic, length: .trackCount(12))
    _ = ids
}

func moodReportExample(input: MoodReport.Input) throws {
    let report = try MoodReport(input)
    print(report.renderedText(style: .plain))
}

func pcaExample(space: FeatureSpace) throws {
    let pca = try PCA.fit(space.matrix.values, componentCount: 2)
    let points = pca.project(space.matrix.values)  // n × 2
    print(pca.explainedVarianceRatios)  // [0.31, 0.18]
    _ = points
}

func cosineIndexExample(features: FeatureMatrix, query: [Float]) {
    let index = CosineIndex(features)
    let neighbors = index.nearestNeighbors(of: query, count: 10)
    _ = neighbors
}

func recommendationQueryExample(recommender: Recommender) throws {
    var query = RecommendationQuery(seeds: [.track(42)])
    query.setTarget(0.8, for: .energy)
    query.setMaximum(120, for: .tempo)
    let result = try recommender.recommend(query)
    _ = result
}

func recommenderExample(store: LibraryStore, attributes: [Int64: TrackAttributes]) throws {
    let recommender = Recommender(table: try store.featureTable(), attributes: attributes)
    var query = RecommendationQuery(seeds: [.track(42)], count: 20, diversity: 0.3)
    query.setMaximum(120, for: .tempo)
    let result = try recommender.recommend(query)
    _ = result
}

// MARK: - AudioAnalysis

func audioAnalysisOverviewExample() throws {
    let analysis = try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: "song.flac"))
    analysis.features.tempo  // 128.1, measured by aubio's beat tracker
    analysis.features.key  // 9 (A), measured from the pitch-class profile
    analysis.confidence[.key]  // 0.74
    analysis.provenance[.energy]  // .estimated
    analysis.features.liveness  // nil: never estimated
}

func audioAnalyzerExample() throws {
    let analyzer = AudioAnalyzer(tagger: try MusicTagger())
    let analysis = try analyzer.analyze(fileAt: URL(fileURLWithPath: "song.flac"))
    print(analysis.features.tempo ?? 0, analysis.confidence[.tempo] ?? 0, analysis.audioTags?.topTags ?? [])
}

func musicTaggerExample() throws {
    let tagger = try MusicTagger()
    if let tagging = try tagger.tag(fileAt: URL(fileURLWithPath: "song.flac")) {
        print(tagging.probabilities(above: 0.2))
    }
}

// MARK: - Ingest

func featureSourcesExample() async throws {
    let store = try LibraryStore(path: "library.sqlite")
    let reccoBeats = ReccoBeatsProvider(client: ReccoBeatsClient(baseURL: ReccoBeatsClient.baseURL()))
    let report = try await FeatureChain(store: store, providers: [reccoBeats]).run()
    print("\(report.fetched) of \(report.candidates) tracks got features; \(report.remaining) remain")
}

func reccoBeatsClientExample() async throws {
    let client = ReccoBeatsClient(baseURL: ReccoBeatsClient.baseURL())
    let items = try await client.audioFeatures(ids: ["4uLU6hMCjMI75M1A2tKUQC"])
    _ = items
}

func spotifyClientExample(store: any AccessTokenProvider) async throws {
    let client = SpotifyClient(tokens: store)
    let me = try await client.currentUser()
    let page = try await client.savedTracks(offset: 0)
    _ = (me, page)
}

func refreshTokenSealerExample(clientID: String, refreshToken: String) throws {
    let sealer = try RefreshTokenSealer(keyFile: "/etc/vibes/token-key", clientID: clientID)
    let sealed = try sealer.seal(refreshToken)  // "v1.q83v…"
    let plain = try sealer.open(sealed)  // refreshToken
    _ = plain
}

func tokenServerExample(id: String, secret: String) async throws {
    let server = TokenServer(
        configuration: .init(clientID: id, clientSecret: secret, redirectURI: "myapp://callback"),
        sealer: try RefreshTokenSealer(keyFile: "token-key", clientID: id),
        transport: URLSessionTransport(timeout: 20)
    ) { entry in print(entry) }
    try await server.run { endpoints in print("Listening on \(endpoints.swapURL)") }
}

// MARK: - VibesBenchmarking

func audioFeatureMixtureExample() async {
    let library = SyntheticLibrary(mixture: .tidyTuesdaySample)
    let matrix = await library.makeMatrix(rowCount: 1_000_000, seed: 42)
    _ = matrix
}

func clusteringBenchmarkExample() async throws {
    var settings = ClusteringBenchmark.Settings()
    settings.rowCounts = [100_000]
    let report = try await ClusteringBenchmark(settings: settings, data: .synthetic(SyntheticLibrary())).run()
    print(report.renderedTable())
}

func machineLoadExample() async {
    let before = await MachineLoad.measure(over: .milliseconds(250))
    if before.isBusy { print("busy: the figures may be slower than this machine can do") }
}

func syntheticLibraryExample() async {
    let matrix = await SyntheticLibrary().makeMatrix(rowCount: 100_000, seed: 42)
    _ = matrix
}

// MARK: - VibesTestSupport

func fakeSpotifyExample(tokens: any AccessTokenProvider) async throws {
    try await FakeSpotify.withServer { fake in
        await fake.state.setSavedTrackCount(120)
        let client = SpotifyClient(tokens: tokens, baseURL: fake.apiBaseURL)
    }
}

func chromiumSessionExample(url: URL) async throws {
    try await ChromiumSession.withSession { browser in
        try await browser.open(url)
        try await browser.waitUntil("document.querySelector('#explorer canvas') !== null")
        try await browser.drag(through: [(100, 100), (300, 120), (200, 300)])
        let count = try await browser.evaluate("document.querySelectorAll('#staging li').length", as: Int.self)
    }
}

// MARK: - Hybrid similarity blocks

func recommenderAddingExample(recommender: Recommender, artistGenres: [Int64: Set<String>]) {
    var hybrid = recommender
    if let tags = SimilarityBlock.tags(
        from: [SimilarityBlock.Source(signal: .artistGenreTags, terms: artistGenres)],
        trackIDs: recommender.features.trackIDs
    ) {
        hybrid = recommender.adding(tags)
    }
    _ = hybrid
}

// MARK: - VibesServer

func vibesServerExample(path: String) async throws {
    let server = VibesServer(configuration: .init(port: 0), store: try LibraryStore(path: path))
    try await server.run { url in print("Open \(url)") }
}

func spotifyAccountExample(
    store: LibraryStore,
    makeClient: @escaping @Sendable () throws -> (SpotifyClient, TokenStore)
) {
    let account = SpotifyAccount.savedSession { try makeClient() }
    let server = VibesServer(configuration: .init(), store: store, spotify: account)
    _ = server
}
