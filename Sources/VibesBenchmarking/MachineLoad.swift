import Analytics
import Foundation

/// How busy the machine was over a window, apart from this process: the load average, the
/// processor time other processes used, and the time the hypervisor stole.
///
/// Benchmark figures from a busy machine are slower and noisier than the code is; a report says
/// so rather than refusing to run. Read from `/proc/loadavg`, `/proc/stat` and `/proc/self/stat`
/// (Linux); elsewhere only what can be read is filled in.
///
/// ```swift
/// let before = await MachineLoad.measure(over: .milliseconds(250))
/// if before.isBusy { print("busy: the figures may be slower than this machine can do") }
/// ```
public struct MachineLoad: Hashable, Sendable, Codable {
    /// The 1-minute load average at the end of the window: runnable and waiting threads,
    /// including this process's own.
    public var loadAverage: Double?
    /// The number of logical processors.
    public var logicalCPUCount: Int
    /// The share of all processors' time that other processes used during the window, in 0…1.
    public var otherProcessesShare: Double?
    /// The share of all processors' time stolen by the hypervisor for other guests, in 0…1.
    public var stealShare: Double?
    /// The length of the window, in seconds.
    public var windowSeconds: Double

    /// Whether figures measured in this window are doubtful: the load average above half the
    /// processor count, other processes using more than a quarter of all processors' time, or more
    /// than 5 % of it stolen.
    public var isBusy: Bool { !busyReasons(includingLoadAverage: true).isEmpty }

    /// Whether the window was busy, judging by the load average only if `includingLoadAverage`:
    /// after a window in which this process ran, the load average counts its own threads too.
    public func isBusy(includingLoadAverage: Bool) -> Bool {
        !busyReasons(includingLoadAverage: includingLoadAverage).isEmpty
    }

    /// Why the window counts as busy, such as `other processes used 45 % of the CPUs`; empty when
    /// it was quiet.
    public func busyReasons(includingLoadAverage: Bool) -> [String] {
        var reasons: [String] = []
        if includingLoadAverage, let loadAverage, loadAverage > 0.5 * Double(logicalCPUCount) {
            reasons.append("load average \(String(format: "%.2f", loadAverage)) on \(logicalCPUCount) CPUs")
        }
        if let otherProcessesShare, otherProcessesShare > 0.25 {
            reasons.append("other processes used \(BenchmarkFormatting.percent(otherProcessesShare)) of the CPUs")
        }
        if let stealShare, stealShare > 0.05 {
            reasons.append("the hypervisor stole \(BenchmarkFormatting.percent(stealShare)) of the CPU time")
        }
        return reasons
    }

    enum CodingKeys: String, CodingKey {
        case loadAverage = "load_average"
        case logicalCPUCount = "logical_cpus"
        case otherProcessesShare = "other_processes_cpu_share"
        case stealShare = "steal_share"
        case windowSeconds = "window_seconds"
    }
}

// MARK: - Measuring

extension MachineLoad {
    /// Processor-time counters at one instant, in clock ticks.
    public struct Snapshot: Sendable {
        var instant: ContinuousClock.Instant
        /// All processors' ticks: total, and spent idle or waiting for I/O, and stolen.
        var total: UInt64?
        var idle: UInt64?
        var steal: UInt64?
        /// This process's user and system ticks.
        var own: UInt64?
    }

    /// Reads the counters now.
    public static func snapshot() -> Snapshot {
        var snapshot = Snapshot(instant: ContinuousClock.now)
        if let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        {
            // cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is
            // already counted in user.
            let fields = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
            if fields.count >= 8 {
                snapshot.total = fields.prefix(8).reduce(0, +)
                snapshot.idle = fields[3] + fields[4]
                snapshot.steal = fields[7]
            }
        }
        if let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        {
            // After "pid (comm)": state is field 3, utime field 14 and stime field 15.
            let fields = text[text.index(after: close)...].split(separator: " ")
            if fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) {
                snapshot.own = user + system
            }
        }
        return snapshot
    }

    /// The load between `start` and now.
    public static func since(_ start: Snapshot) -> MachineLoad {
        let end = snapshot()
        let cpuCount = ProcessInfo.processInfo.activeProcessorCount
        var load = MachineLoad(
            loadAverage: currentLoadAverage(),
            logicalCPUCount: cpuCount,
            otherProcessesShare: nil,
            stealShare: nil,
            windowSeconds: (end.instant - start.instant).seconds
        )
        if let t0 = start.total, let t1 = end.total, let i0 = start.idle, let i1 = end.idle,
            let s0 = start.steal, let s1 = end.steal, t1 > t0
        {
            let total = Double(t1 - t0)
            let busy = Double((t1 - t0) - (i1 &- i0) - (s1 &- s0))
            let own = Double((end.own ?? 0) &- (start.own ?? 0))
            load.otherProcessesShare = Swift.min(1, Swift.max(0, (busy - own) / total))
            load.stealShare = Swift.min(1, Swift.max(0, Double(s1 - s0) / total))
        }
        return load
    }

    /// Watches the machine for `window` while this task sleeps.
    public static func measure(over window: Duration) async -> MachineLoad {
        let start = snapshot()
        try? await Task.sleep(for: window)
        return since(start)
    }

    /// The 1-minute load average from `/proc/loadavg`.
    static func currentLoadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }
}
