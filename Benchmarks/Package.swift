// swift-tools-version: 6.3

import PackageDescription

// The benchmarks of vibes-analyze, kept out of the main package so that its users never fetch
// package-benchmark. Run from this folder: `swift package benchmark` (add `--target KMeans` for
// one suite). Side-by-side comparisons with scikit-learn and faiss are in `compare/`.
let package = Package(
    name: "vibes-analyze-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "vibes-analyze", path: "../"),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "KMeans",
            dependencies: [
                .product(name: "Analytics", package: "vibes-analyze"),
                .product(name: "Features", package: "vibes-analyze"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "KMeans",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "CosineKNN",
            dependencies: [
                .product(name: "Analytics", package: "vibes-analyze"),
                .product(name: "Features", package: "vibes-analyze"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "CosineKNN",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
)
