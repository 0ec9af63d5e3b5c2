import Analytics
import Foundation

/// What a benchmark ran on: the processor, the build, and this machine's measured limits.
///
/// ``measure(threadCounts:options:)`` reads the description from `/proc` and the build, then
/// measures, briefly, two ceilings per thread count (a ``Roofline``): how fast the threads can read
/// memory, and how many multiply-adds per second this build's SIMD code can issue. A benchmark
/// figure divided by its roofline says how close to the machine's limit the code runs.
public struct MachineProfile: Hashable, Sendable, Codable {
    /// The processor model, from `/proc/cpuinfo` (`model name`), or `unknown`.
    public var cpuModel: String
    /// The number of logical processors available to the process.
    public var logicalCPUCount: Int
    /// The processor's vector extensions that matter for this code (`sse4_2`, `avx`, `avx2`, `fma`,
    /// `avx512f`), as `/proc/cpuinfo` lists them: what the processor could do, not what this build
    /// uses.
    public var cpuFeatures: [String]
    /// The operating system, such as `Debian GNU/Linux 12 (bookworm)`.
    public var operatingSystem: String
    /// The kernel release, from `/proc/sys/kernel/osrelease`.
    public var kernel: String?
    /// The compiler of this build, such as `Swift 6.3` (from compiler version checks, so a lower
    /// bound: `Swift 6.3` means 6.3 or a later 6.3.x).
    public var compiler: String
    /// `debug` or `release`; debug figures say little about the code's speed.
    public var buildConfiguration: String
    /// The BLAS library's description (`openblas_get_config()`), such as
    /// `OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64`.
    public var blas: String?
    /// The loop whose rate is ``Roofline/multiplyAddPeak``: the faster, in this build, of 12
    /// `SIMD4<Float>` or 12 `SIMD8<Float>` accumulators.
    public var multiplyAddLoop: String
    /// The measured ceilings, one per thread count asked for, by increasing thread count.
    public var rooflines: [Roofline]
    /// How long the measurements took, in seconds.
    public var probeSeconds: Double

    /// The roofline measured for `threadCount` threads, if it was measured.
    public func roofline(threadCount: Int) -> Roofline? {
        rooflines.first { $0.threadCount == threadCount }
    }

    enum CodingKeys: String, CodingKey {
        case cpuModel = "cpu_model"
        case logicalCPUCount = "logical_cpus"
        case cpuFeatures = "cpu_features"
        case operatingSystem = "operating_system"
        case kernel
        case compiler
        case buildConfiguration = "build_configuration"
        case blas
        case multiplyAddLoop = "multiply_add_loop"
        case rooflines
        case probeSeconds = "probe_seconds"
    }
}

// MARK: - Roofline

/// The two ceilings of a loop on this machine at one thread count: memory read bandwidth and
/// multiply-add throughput.
///
/// A loop that reads *B* bytes and does *F* floating-point operations cannot take less than
/// max(*B* / ``readBandwidth``, *F* / ``multiplyAddPeak``) seconds: ``minimumSeconds(bytes:flops:)``.
public struct Roofline: Hashable, Sendable, Codable {
    /// The number of threads measured.
    public var threadCount: Int
    /// The best read bandwidth, in bytes per second: threads summing a 256 MiB `Float` array in
    /// 8-lane SIMD, each its own slice.
    public var readBandwidth: Double
    /// The best multiply-add rate of this build, in floating-point operations per second (a
    /// multiply and an add count two): `a * b + c` on 12 independent SIMD accumulators per thread
    /// — the form of the k-means kernel's inner loop (see ``MachineProfile/multiplyAddLoop``). A
    /// build for a baseline x86-64 uses 128-bit SSE and no fused multiply-add, so it measures less
    /// than the processor's FMA peak; `-Xswiftc -target-cpu -Xswiftc x86-64-v3` raises it.
    public var multiplyAddPeak: Double

    public init(threadCount: Int, readBandwidth: Double, multiplyAddPeak: Double) {
        self.threadCount = threadCount
        self.readBandwidth = readBandwidth
        self.multiplyAddPeak = multiplyAddPeak
    }

    /// The least time, in seconds, a loop that reads `bytes` bytes and does `flops` floating-point
    /// operations can take.
    public func minimumSeconds(bytes: Double, flops: Double) -> Double {
        Swift.max(bytes / readBandwidth, flops / multiplyAddPeak)
    }

    enum CodingKeys: String, CodingKey {
        case threadCount = "threads"
        case readBandwidth = "read_bandwidth_bytes_per_second"
        case multiplyAddPeak = "multiply_add_flops_per_second"
    }
}

// MARK: - Measuring

extension MachineProfile {
    /// How long and how hard ``measure(threadCounts:options:)`` probes.
    public struct ProbeOptions: Hashable, Sendable {
        /// The size of the array summed to measure bandwidth, in bytes; 256 MiB by default, far
        /// beyond any cache.
        public var bandwidthBufferBytes = 256 << 20
        /// The longest one bandwidth pass may take before it stops early (the bytes read so far
        /// still give a rate); 0.25 s by default.
        public var bandwidthPassLimit = Duration.milliseconds(250)
        /// How long one multiply-add measurement runs; 25 ms by default.
        public var multiplyAddDuration = Duration.milliseconds(25)
        /// The number of measurements of each kind per thread count; the best is kept. 3 by default.
        public var attempts = 3

        public init() {}
    }

    /// Describes this machine and build and measures its rooflines at `threadCounts`.
    ///
    /// With the default options this takes about half a second (mostly writing the 256 MiB array
    /// once); the array is freed before returning.
    ///
    /// - Parameters:
    ///   - threadCounts: The thread counts to measure, each at least 1.
    ///   - options: Buffer size, durations and attempts.
    public static func measure(threadCounts: [Int], options: ProbeOptions = ProbeOptions()) async -> MachineProfile {
        let clock = ContinuousClock()
        let start = clock.now
        let counts = Array(Set(threadCounts.map { Swift.max(1, $0) })).sorted()
        var bandwidths: [Int: Double] = [:]
        do {
            let buffer = makeProbeBuffer(byteCount: options.bandwidthBufferBytes)
            for threads in counts {
                var best = 0.0
                for _ in 0..<Swift.max(1, options.attempts) {
                    best = Swift.max(
                        best,
                        await readBandwidth(of: buffer, threadCount: threads, limit: options.bandwidthPassLimit)
                    )
                }
                bandwidths[threads] = best
            }
        }
        // The loop shape this build runs fastest (which depends on its vector registers), and the
        // passes of it that take about the measurement's duration.
        let (shape, iterations) = MultiplyAddShape.allCases.map { shape in
            (shape, calibrateMultiplyAdd(shape, duration: options.multiplyAddDuration))
        }.max { $0.1.rate < $1.1.rate }.map { ($0.0, $0.1.iterations) }!
        var rooflines: [Roofline] = []
        for threads in counts {
            var best = 0.0
            for _ in 0..<Swift.max(1, options.attempts) {
                best = Swift.max(best, await multiplyAddRate(shape, threadCount: threads, iterations: iterations))
            }
            rooflines.append(Roofline(threadCount: threads, readBandwidth: bandwidths[threads]!, multiplyAddPeak: best))
        }
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        return MachineProfile(
            cpuModel: cpuModel(fromCPUInfo: cpuInfo) ?? "unknown",
            logicalCPUCount: ProcessInfo.processInfo.activeProcessorCount,
            cpuFeatures: vectorExtensions(fromCPUInfo: cpuInfo),
            operatingSystem: ProcessInfo.processInfo.operatingSystemVersionString,
            kernel: (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines),
            compiler: compilerVersion,
            buildConfiguration: buildConfiguration,
            blas: blasConfiguration,
            multiplyAddLoop: shape.description,
            rooflines: rooflines,
            probeSeconds: (clock.now - start).seconds
        )
    }

    /// The value of the first `model name` line of `/proc/cpuinfo` text.
    static func cpuModel(fromCPUInfo text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The vector extensions among the first `flags` line of `/proc/cpuinfo` text.
    static func vectorExtensions(fromCPUInfo text: String) -> [String] {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return [] }
        let flags = Set(line.split(separator: " ").map(String.init))
        return ["sse4_2", "avx", "avx2", "fma", "avx512f"].filter { flags.contains($0) }
    }

    /// The compiler version of this build, from `#if compiler(>=…)`.
    static var compilerVersion: String {
        #if compiler(>=7.0)
        "Swift 7.0 or later"
        #elseif compiler(>=6.4)
        "Swift 6.4"
        #elseif compiler(>=6.3)
        "Swift 6.3"
        #elseif compiler(>=6.2)
        "Swift 6.2"
        #elseif compiler(>=6.1)
        "Swift 6.1"
        #else
        "Swift 6.0 or earlier"
        #endif
    }

    /// `debug` or `release`, and the processor the build targets: the portable baseline that
    /// SwiftPM builds by default, or this machine's class of processor when built by `make`
    /// (`scripts/host-cpu-flags.sh` adds `-target-cpu haswell -DVIBES_HOST_CPU`).
    static var buildConfiguration: String {
        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        #if VIBES_HOST_CPU
        return configuration + ", for x86-64-v3 (AVX2, FMA)"
        #elseif arch(x86_64)
        return configuration + ", portable x86-64 (SSE2)"
        #else
        return configuration
        #endif
    }

    /// A multiply-add measurement loop: 12 independent accumulators of one vector width.
    ///
    /// Which runs fastest depends on the build: a baseline x86-64 build has sixteen 128-bit
    /// registers, so twelve `SIMD8<Float>` accumulators spill and twelve `SIMD4<Float>` do not; an
    /// AVX2 build holds twelve `SIMD8<Float>` in its 256-bit registers. Both are measured and the
    /// faster is kept.
    enum MultiplyAddShape: CaseIterable, CustomStringConvertible {
        case simd4, simd8

        /// The floating-point operations of one pass: 12 accumulators × lanes × (multiply + add).
        var flopsPerIteration: Int {
            switch self {
            case .simd4: 12 * 4 * 2
            case .simd8: 12 * 8 * 2
            }
        }

        func run(iterations: Int, seed: Float) -> Float {
            switch self {
            case .simd4: MachineProfile.multiplyAddLoop(SIMD4<Float>.self, iterations: iterations, seed: seed)
            case .simd8: MachineProfile.multiplyAddLoop(SIMD8<Float>.self, iterations: iterations, seed: seed)
            }
        }

        var description: String {
            switch self {
            case .simd4: "a × b + c, 12 × SIMD4<Float> accumulators per thread"
            case .simd8: "a × b + c, 12 × SIMD8<Float> accumulators per thread"
            }
        }
    }

    /// The number of passes of `shape` that take about `duration` on one thread, and the rate in
    /// floating-point operations per second seen while finding it.
    private static func calibrateMultiplyAdd(
        _ shape: MultiplyAddShape,
        duration: Duration
    ) -> (
        iterations: Int, rate: Double
    ) {
        let clock = ContinuousClock()
        var iterations = 1 << 10
        while true {
            let start = clock.now
            blackHole(shape.run(iterations: iterations, seed: 1))
            let elapsed = (clock.now - start).seconds
            if elapsed >= duration.seconds / 8 || iterations >= 1 << 34 {
                let rate = Double(iterations * shape.flopsPerIteration) / Swift.max(elapsed, 1e-9)
                let scale = duration.seconds / Swift.max(elapsed, 1e-9)
                return (Swift.max(1, Int(Double(iterations) * scale)), rate)
            }
            iterations *= 4
        }
    }

    /// Multiply-adds per second with `threadCount` tasks running `iterations` passes of `shape` each.
    private static func multiplyAddRate(_ shape: MultiplyAddShape, threadCount: Int, iterations: Int) async -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        await withTaskGroup(of: Float.self) { group in
            for thread in 0..<threadCount {
                group.addTask { shape.run(iterations: iterations, seed: Float(thread + 1)) }
            }
            for await result in group { blackHole(result) }
        }
        let seconds = (clock.now - start).seconds
        return Double(threadCount * iterations * shape.flopsPerIteration) / seconds
    }

    /// Bytes per second that `threadCount` tasks read from `buffer`, each summing its own slice.
    private static func readBandwidth(of buffer: [Float], threadCount: Int, limit: Duration) async -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + limit
        let slices = (0..<threadCount).map {
            (buffer.count * $0 / threadCount)..<(buffer.count * ($0 + 1) / threadCount)
        }
        let bytes = await withTaskGroup(of: Int.self) { group in
            for slice in slices {
                group.addTask {
                    let (floatsRead, sum) = sumFloats(buffer, in: slice, deadline: deadline)
                    blackHole(sum)
                    return floatsRead * MemoryLayout<Float>.size
                }
            }
            return await group.reduce(0, +)
        }
        return Double(bytes) / (clock.now - start).seconds
    }

    /// The k-means kernel's inner operation, `a * m + c`, on 12 independent accumulators of
    /// vector type `V`, `iterations` times; returns the sum of all lanes so the work is kept.
    @inline(never)
    static func multiplyAddLoop<V: SIMD>(_: V.Type, iterations: Int, seed: Float) -> Float where V.Scalar == Float {
        let m = V(repeating: 0.999_999)
        let c = V(repeating: 1e-7 * seed)
        var a0 = V(repeating: seed)
        var a1 = a0 + 1
        var a2 = a0 + 2
        var a3 = a0 + 3
        var a4 = a0 + 4
        var a5 = a0 + 5
        var a6 = a0 + 6
        var a7 = a0 + 7
        var a8 = a0 + 8
        var a9 = a0 + 9
        var a10 = a0 + 10
        var a11 = a0 + 11
        for _ in 0..<iterations {
            a0 = a0 * m + c
            a1 = a1 * m + c
            a2 = a2 * m + c
            a3 = a3 * m + c
            a4 = a4 * m + c
            a5 = a5 * m + c
            a6 = a6 * m + c
            a7 = a7 * m + c
            a8 = a8 * m + c
            a9 = a9 * m + c
            a10 = a10 * m + c
            a11 = a11 * m + c
        }
        let total = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11))
        return total.sum()
    }
}

/// Keeps a value alive so that the optimizer cannot remove the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    _ = value
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
