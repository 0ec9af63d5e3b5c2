// swift-tools-version:6.1

import PackageDescription

let package = Package(
    name: "vibes-analyze",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Features", targets: ["Features"]),
        .library(name: "Analytics", targets: ["Analytics"]),
        .library(name: "Ingest", targets: ["Ingest"]),
        .library(name: "SpotifyWebAPI", targets: ["SpotifyWebAPI"]),
        .library(name: "VibesEngine", targets: ["VibesEngine"]),
        .library(name: "VibesServer", targets: ["VibesServer"]),
        .library(name: "AudioAnalysis", targets: ["AudioAnalysis"]),
        .library(name: "VibesBenchmarking", targets: ["VibesBenchmarking"]),
        .executable(name: "vibes-analyze", targets: ["vibes-analyze"]),
        .executable(name: "vibes-analyze-audio", targets: ["vibes-analyze-audio"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        // MARK: - Public API

        .target(
            name: "Features",
            dependencies: ["CBLAS"]
        ),
        .target(
            name: "Analytics",
            dependencies: ["Features", "CBLAS", "CLAPACKE"]
        ),
        .target(
            name: "Ingest",
            dependencies: [
                "Features", "SpotifyWebModel", "VibesHashing", "VibesHTTP",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // The Spotify Web API client and its sign-in; the token server is its own target below.
        .target(
            name: "SpotifyWebAPI",
            dependencies: [
                "Features", "SpotifyWebModel", "VibesHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The joins of the store with the analyses and with Spotify: one library call per action.
        .target(
            name: "VibesEngine",
            dependencies: [
                "Analytics", "Features", "Ingest", "SpotifyWebAPI", "SpotifyWebModel",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The HTTP server of `vibes-analyze serve`: the JSON API, the Spotify-compatible
        // endpoints and the embedded web app, over FlyingFox.
        .target(
            name: "VibesServer",
            dependencies: [
                "Analytics", "Features", "Ingest", "SpotifyWebAPI", "VibesEngine",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "AudioAnalysis",
            dependencies: ["Features", "CBLAS", "CFFmpeg", "CEBUR128", "CAubio"],
            // The music tagger's converted weights (scripts/tagger/convert_musicnn.py).
            resources: [.copy("Tagging/MSD_musicnn")]
        ),
        .target(
            name: "VibesBenchmarking",
            dependencies: ["Analytics", "Features", "CBLAS"]
        ),
        .executableTarget(
            name: "vibes-analyze",
            dependencies: [
                "Analytics", "Features", "Ingest", "SpotifyTokenServer", "SpotifyWebAPI", "SpotifyWebModel",
                "VibesBenchmarking", "VibesCommandSupport", "VibesEngine", "VibesHTTP", "VibesServer",
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: ["GitDescribe"]
        ),
        // Its own program, so that only it links FFmpeg and aubio: `vibes-analyze analyze` runs it.
        .executableTarget(
            name: "vibes-analyze-audio",
            dependencies: [
                "AudioAnalysis", "Features", "Ingest", "VibesCommandSupport", "VibesEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: - Implementation details

        // `git describe` for `vibes-analyze --version`.
        .plugin(name: "GitDescribe", capability: .buildTool(), path: "Plugins/GitDescribe"),

        .systemLibrary(
            name: "CBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]
        ),
        .systemLibrary(
            name: "CLAPACKE",
            pkgConfig: "lapacke",
            providers: [.apt(["liblapacke-dev"])]
        ),
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev"])]
        ),
        // libcurl, under the network clients: FoundationNetworking's URLSession keeps a core busy
        // while it waits for an answer.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CEBUR128",
            pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]
        ),
        .systemLibrary(
            name: "CAubio",
            pkgConfig: "aubio",
            providers: [.apt(["libaubio-dev"])]
        ),
        // HTTP over libcurl with retries and redaction, shared by the Spotify and ReccoBeats clients.
        .target(
            name: "VibesHTTP",
            dependencies: [
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // SHA-256 for the importers, over libcrypto rather than swift-crypto.
        .target(
            name: "VibesHashing",
            dependencies: ["CLibCrypto"]
        ),
        // OpenSSL's libcrypto, which libcurl (libcurl4-openssl-dev) already loads.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // The Spotify Web API's JSON objects: the client decodes them, and the importers read saved
        // API answers, without either linking the other.
        .target(
            name: "SpotifyWebModel",
            dependencies: ["Features"]
        ),
        // The token server of `vibes-analyze token-server`: only the tool links it.
        .target(
            name: "SpotifyTokenServer",
            dependencies: [
                "SpotifyWebAPI", "VibesHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // glibc's `mallopt`, part of the C library itself: no package to install or link.
        .systemLibrary(name: "CMalloc"),
        .target(
            name: "VibesCommandSupport",
            dependencies: [
                "Features", "Ingest",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "VibesTestSupport",
            dependencies: [
                "Features", "Ingest",
                .product(name: "Numerics", package: "swift-numerics"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            resources: [.copy("Fixtures")]
        ),
        // Fake Spotify and ReccoBeats servers on 127.0.0.1, and a signed-in client for them.
        .target(
            name: "SpotifyTestSupport",
            dependencies: [
                "Features", "SpotifyWebAPI", "VibesHTTP", "VibesTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: - Tests

        .testTarget(
            name: "FeaturesTests",
            dependencies: [
                "Features", "VibesTestSupport",
                .product(name: "Numerics", package: "swift-numerics"),
            ]
        ),
        .testTarget(
            name: "AnalyticsTests",
            dependencies: [
                "Analytics", "Features", "VibesBenchmarking", "VibesTestSupport",
                .product(name: "Numerics", package: "swift-numerics"),
            ]
        ),
        .testTarget(
            name: "VibesBenchmarkingTests",
            dependencies: [
                "VibesBenchmarking", "Analytics", "Features", "VibesTestSupport",
                .product(name: "Numerics", package: "swift-numerics"),
            ]
        ),
        .testTarget(
            name: "AudioAnalysisTests",
            dependencies: ["AudioAnalysis", "Features", "VibesTestSupport"]
        ),
        .testTarget(
            name: "IngestTests",
            dependencies: [
                "Ingest", "Features", "VibesTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "VibesHTTPTests",
            dependencies: [
                "VibesHTTP", "VibesTestSupport",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Checks the libcrypto hash against swift-crypto's.
        .testTarget(
            name: "VibesHashingTests",
            dependencies: [
                "VibesHashing",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "SpotifyWebAPITests",
            dependencies: [
                "Features", "SpotifyTestSupport", "SpotifyWebAPI", "SpotifyWebModel", "VibesHTTP", "VibesTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SpotifyTokenServerTests",
            dependencies: [
                "Features", "SpotifyTestSupport", "SpotifyTokenServer", "SpotifyWebAPI", "VibesHTTP",
                "VibesTestSupport",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "VibesEngineTests",
            dependencies: [
                "Analytics", "Features", "Ingest", "SpotifyTestSupport", "SpotifyWebAPI", "SpotifyWebModel",
                "VibesEngine", "VibesHTTP", "VibesTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "VibesServerTests",
            dependencies: [
                "Features", "Ingest", "SpotifyTestSupport", "SpotifyWebAPI", "VibesEngine", "VibesServer",
                "VibesTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DocExampleTests",
            dependencies: [
                "Analytics", "AudioAnalysis", "Features", "Ingest", "SpotifyTestSupport", "SpotifyTokenServer",
                "SpotifyWebAPI", "VibesBenchmarking", "VibesHTTP", "VibesServer", "VibesTestSupport",
            ]
        ),
        .testTarget(
            name: "VibesAnalyzeTests",
            dependencies: [
                "vibes-analyze", "vibes-analyze-audio", "Analytics", "Features", "Ingest", "SpotifyTestSupport",
                "SpotifyWebAPI", "VibesCommandSupport", "VibesEngine", "VibesHTTP", "VibesTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
