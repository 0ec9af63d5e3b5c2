import Analytics
import Features
import Foundation
import Testing

@testable import VibesBenchmarking

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Every element of an XML document with its attributes, in document order.
private final class ElementLog: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []

    func parser(
        _ parser: XMLParser,
        didStartElement name: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append((name, attributes))
    }

    /// The elements of `text`, which must be well-formed XML.
    static func parse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ElementLog {
        let log = ElementLog()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = log
        let isWellFormed = parser.parse()
        #expect(
            isWellFormed,
            "not well-formed XML: \(String(describing: parser.parserError)) at line \(parser.lineNumber)",
            sourceLocation: sourceLocation
        )
        return log
    }

    func elements(named name: String, withClass cssClass: String) -> [[String: String]] {
        elements.filter {
            $0.name == name && ($0.attributes["class"] ?? "").split(separator: " ").contains(Substring(cssClass))
        }
        .map(\.attributes)
    }
}

/// A report built by hand, with round figures: Lloyd takes 1 ns per row and centroid at one thread
/// and half that at two.
enum ExampleReport {
    static func make(
        rowCounts: [Int] = [100_000, 1_000_000],
        clusterCounts: [Int] = [8, 64],
        threadCounts: [Int] = [1, 2],
        isBusy: Bool = false
    ) -> BenchmarkReport {
        var settings = ClusteringBenchmark.Settings()
        settings.rowCounts = rowCounts
        settings.clusterCounts = clusterCounts
        settings.threadCounts = threadCounts
        let rooflines = threadCounts.map {
            Roofline(threadCount: $0, readBandwidth: 20e9 * Double($0), multiplyAddPeak: 50e9 * Double($0))
        }
        let machine = MachineProfile(
            cpuModel: "Example CPU <x86>",
            logicalCPUCount: 2,
            cpuFeatures: ["avx2", "fma"],
            operatingSystem: "Example OS",
            kernel: "6.0",
            compiler: "Swift 6.3",
            buildConfiguration: "release",
            blas: "OpenBLAS 0.3.21",
            multiplyAddLoop: "a × b + c, 12 × SIMD4<Float> accumulators per thread",
            rooflines: rooflines,
            probeSeconds: 0.4
        )
        let load = MachineLoad(
            loadAverage: isBusy ? 3.5 : 0.1,
            logicalCPUCount: 2,
            otherProcessesShare: isBusy ? 0.6 : 0.01,
            stealShare: 0,
            windowSeconds: 0.25
        )
        var configurations: [BenchmarkReport.ClusteringResult] = []
        var searches: [BenchmarkReport.SearchResult] = []
        for n in rowCounts {
            for t in threadCounts {
                let seconds = BenchmarkReport.Statistic(
                    median: 1e-6 * Double(n) / Double(t),
                    minimum: 0.9e-6 * Double(n) / Double(t),
                    maximum: 1.2e-6 * Double(n) / Double(t)
                )
                searches.append(
                    BenchmarkReport.SearchResult(
                        rowCount: n,
                        columnCount: 12,
                        threadCount: t,
                        queryCount: 1_000,
                        neighborCount: 10,
                        repeats: 3,
                        indexSeconds: .init([0.01, 0.011, 0.012]),
                        seconds: seconds,
                        queriesPerSecond: seconds.reciprocal(times: 1_000),
                        flops: 2e3 * Double(n) * 12,
                        gflops: seconds.reciprocal(times: 2e3 * Double(n) * 12 / 1e9),
                        rooflineSeconds: 1e-3,
                        rooflineFraction: seconds.reciprocal(times: 1e-3),
                        peakMemoryBytes: n * 100,
                        peakMemoryScope: "configuration"
                    )
                )
            }
        }
        for n in rowCounts {
            for k in clusterCounts {
                for t in threadCounts {
                    let time = 1e-9 * Double(n * k) / Double(t)
                    let perIteration = BenchmarkReport.Statistic(
                        median: time,
                        minimum: time * 0.95,
                        maximum: time * 1.1
                    )
                    let bytes = Double(n * 12 * 4)
                    let flops = 2 * Double(n * 12 * k)
                    let roofline = rooflines.first { $0.threadCount == t }!.minimumSeconds(bytes: bytes, flops: flops)
                    configurations.append(
                        BenchmarkReport.ClusteringResult(
                            rowCount: n,
                            columnCount: 12,
                            clusterCount: k,
                            threadCount: t,
                            repeats: 3,
                            seedingSeconds: .init([0.01, 0.012, 0.011]),
                            secondsPerIteration: perIteration,
                            iterationCount: 20,
                            fitSeconds: .init([time * 22]),
                            inertia: .init([Double(n) * 3]),
                            rowsPerSecond: perIteration.reciprocal(times: Double(n)),
                            bytesPerIteration: bytes,
                            flopsPerIteration: flops,
                            bandwidth: perIteration.reciprocal(times: bytes),
                            gflops: perIteration.reciprocal(times: flops / 1e9),
                            rooflineSecondsPerIteration: roofline,
                            rooflineFraction: perIteration.reciprocal(times: roofline),
                            miniBatchSecondsPerStep: .init([1e-4, 1.1e-4, 1.2e-4]),
                            miniBatchSteps: 40,
                            miniBatchInertia: .init([Double(n) * 3.1]),
                            miniBatchInertiaRatio: 3.1 / 3,
                            peakMemoryBytes: n * 60,
                            peakMemoryScope: "configuration",
                            matrixBytes: n * 48
                        )
                    )
                }
            }
        }
        return BenchmarkReport(
            commandLine: "vibes-analyze bench --n 'a&b'",
            date: Date(timeIntervalSince1970: 1_800_000_000),
            isBusy: isBusy,
            loadAverage: load.loadAverage,
            load: BenchmarkReport.Load(before: load, during: load),
            machine: machine,
            data: BenchmarkReport.DataDescription(
                source: "synthetic",
                summary: "Synthetic tracks.",
                columns: SyntheticLibrary.columnNames(count: 12),
                seed: 42,
                preparationSeconds: Dictionary(uniqueKeysWithValues: rowCounts.map { ($0, 0.1) })
            ),
            settings: settings,
            configurations: configurations,
            searches: searches
        )
    }
}

struct BenchmarkReportRenderingTests {
    @Test func jsonIsVersionedAndCarriesEveryConfiguration() throws {
        let report = ExampleReport.make(isBusy: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["busy"] as? Bool == true)
        #expect(object["load_average"] as? Double == 3.5)
        #expect(object["command"] as? String == "vibes-analyze bench --n 'a&b'")
        let machine = try #require(object["machine"] as? [String: Any])
        #expect(machine["cpu_model"] as? String == "Example CPU <x86>")
        let rooflines = try #require(machine["rooflines"] as? [[String: Any]])
        #expect(rooflines.compactMap { $0["read_bandwidth_bytes_per_second"] as? Double } == [20e9, 40e9])
        let configurations = try #require(object["configurations"] as? [[String: Any]])
        #expect(configurations.count == 8)
        let first = configurations[0]
        for key in [
            "n", "d", "cluster_count", "threads", "seeding_seconds", "lloyd_seconds_per_iteration", "lloyd_iterations",
            "rows_per_second",
            "bandwidth_bytes_per_second", "gflops", "roofline_fraction", "inertia", "mini_batch_seconds_per_step",
            "mini_batch_inertia_ratio", "peak_memory_bytes", "matrix_bytes",
        ] {
            #expect(first[key] != nil, "missing \(key)")
        }
        let time = try #require(first["lloyd_seconds_per_iteration"] as? [String: Double])
        #expect(Set(time.keys) == ["median", "min", "max"])
        #expect((object["searches"] as? [Any])?.count == 4)
        let settings = try #require(object["settings"] as? [String: Any])
        #expect(settings["cluster_counts"] as? [Int] == [8, 64])
        // It reads back as the same report.
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(BenchmarkReport.self, from: data) == report)
    }

    @Test func csvRowsAllHaveTheHeadersColumns() {
        let report = ExampleReport.make()
        let lines = report.renderedCSV().split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.first.map(String.init) == BenchmarkReport.csvHeader.joined(separator: ","))
        let width = BenchmarkReport.csvHeader.count
        for line in lines {
            #expect(line.split(separator: ",", omittingEmptySubsequences: false).count == width, "\(line)")
        }
        let perIteration = lines.filter { $0.contains(",lloyd_per_iteration,") }
        #expect(perIteration.count == report.configurations.count)
        #expect(perIteration.first == "kmeans,100000,12,8,1,lloyd_per_iteration,s,0.0008,0.00076,0.00088,3")
        #expect(lines.filter { $0.hasPrefix("cosine,") && $0.contains(",queries_per_second,") }.count == 4)
    }

    @Test func theChartHasOnePathPerSeriesAndAPointPerConfiguration() {
        let report = ExampleReport.make()
        let svg = report.renderedSVG()
        #expect(svg.hasPrefix("<?xml"))
        let log = ElementLog.parse(svg)
        let paths = log.elements(named: "path", withClass: "series")
        #expect(paths.count == 4)  // k = 8 and 64, each at 1 and 2 threads
        #expect(
            Set(paths.compactMap { $0["data-series"] }) == [
                "k=8, 1 thread", "k=8, 2 threads", "k=64, 1 thread", "k=64, 2 threads",
            ]
        )
        // Two points per line: N = 100k and 1M.
        #expect(paths.allSatisfy { ($0["d"] ?? "").split(separator: " ").count == 2 })
        let points = log.elements(named: "circle", withClass: "mark")
        #expect(points.count == report.configurations.count)
        #expect(Set(points.compactMap { $0["data-x"] }) == ["100000", "1000000"])
        let slowest = points.compactMap { $0["data-y"].flatMap(Double.init) }.max()
        #expect(slowest == 64.0 * 1_000_000 * 1e-9 * 1e3)
        #expect(svg.contains("<title id=\"lloyd-time-title\">"))
        #expect(svg.contains("rows N (log scale)"))
        // A standalone file carries its styles.
        #expect(log.elements.contains { $0.name == "style" })
    }

    @Test func withOneRowCountTheChartRunsAlongK() {
        let report = ExampleReport.make(rowCounts: [50_000], clusterCounts: [4, 8, 16])
        let log = ElementLog.parse(report.renderedSVG())
        let paths = log.elements(named: "path", withClass: "series")
        #expect(paths.compactMap { $0["data-series"] } == ["1 thread", "2 threads"])
        #expect(paths.allSatisfy { ($0["d"] ?? "").split(separator: " ").count == 3 })
        #expect(Set(log.elements(named: "circle", withClass: "mark").compactMap { $0["data-x"] }) == ["4", "8", "16"])
    }

    @Test func htmlHoldsTheMachineTheTablesAndTheChart() {
        let report = ExampleReport.make(isBusy: true)
        let html = report.renderedHTML()
        let log = ElementLog.parse(html)
        #expect(log.elements.filter { $0.name == "table" }.count == 4)  // the machine, then three result tables
        #expect(log.elements.contains { $0.name == "svg" && $0.attributes["data-chart"] == "lloyd-time" })
        #expect(log.elements(named: "path", withClass: "series").count == 4)
        #expect(html.contains("Example CPU &lt;x86&gt;"))
        #expect(html.contains("--n &#39;a&amp;b&#39;"))
        #expect(html.contains("Lloyd per iteration"))
        #expect(html.contains("class=\"warning\""))
        #expect(!html.contains("<script"))
        #expect(!ExampleReport.make().renderedHTML().contains("class=\"warning\""))
    }

    @Test func theTableShowsMediansWithTheirSpreadAndTheMachine() {
        let text = ExampleReport.make().renderedTable()
        #expect(text.contains("Example CPU <x86>, 2 logical CPUs (avx2 fma)"))
        #expect(text.contains("1 thread: read 20.0 GB/s, multiply-add 50.0 GFLOP/s"))
        #expect(text.contains("800 µs (760–880)"))  // N = 100k, k = 8, one thread
        #expect(text.contains("64.0 ms (60.8–70.4)"))  // N = 1M, k = 64, one thread
        #expect(text.contains("1,000,000"))
        #expect(!text.contains("warning:"))
        let busy = ExampleReport.make(isBusy: true).renderedTable()
        #expect(busy.contains("warning: the machine was busy (load average 3.50 on 2 CPUs before the run"))
        // Three tables, each under its rule, every row no wider than the rule.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let rules = lines.indices.filter { lines[$0].hasPrefix("─") }
        #expect(rules.count == 3)
        for rule in rules {
            let rows = lines[(rule + 1)...].prefix { !$0.isEmpty }
            #expect(!rows.isEmpty)
            #expect(rows.allSatisfy { $0.count <= lines[rule].count })
        }
    }
}
