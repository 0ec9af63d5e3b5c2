import Foundation

/// `--timings`: how long each phase of a command took (open, load, compute, save, render), printed
/// to stderr when the command ends, with the time since the process started.
package struct PhaseTimer {
    package let isEnabled: Bool
    private var phases: [(name: String, duration: Duration)] = []
    private var last = ContinuousClock.now

    package init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// Ends the current phase, naming it.
    package mutating func lap(_ name: String) {
        let now = ContinuousClock.now
        phases.append((name, now - last))
        last = now
    }

    /// Records phases timed elsewhere (by a library call) as the current phase's parts, in order;
    /// what the current phase took besides them is recorded as `rest`, when anything.
    package mutating func lap(_ rest: String, parts: [(name: String, duration: Duration)]) {
        let now = ContinuousClock.now
        var remainder = now - last
        for part in parts {
            phases.append(part)
            remainder -= part.duration
        }
        if remainder > .milliseconds(1) { phases.append((rest, remainder)) }
        last = now
    }

    /// The milliseconds of `name`, when that phase was timed.
    package func milliseconds(of name: String) -> Double? {
        phases.first { $0.name == name }.map { Self.milliseconds($0.duration) }
    }

    /// Writes `timings: open 2 ms, load 80 ms, … (process 140 ms)` to stderr, when enabled.
    package func report() {
        guard isEnabled else { return }
        var parts = phases.map { "\($0.name) \(Self.format(Self.milliseconds($0.duration)))" }
        if let age = Self.processAgeMilliseconds() { parts.append("since process start \(Self.format(age))") }
        Console.diagnostic("timings: " + parts.joined(separator: ", "))
    }

    package static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    package static func format(_ milliseconds: Double) -> String {
        milliseconds < 10 ? String(format: "%.1f ms", milliseconds) : String(format: "%.0f ms", milliseconds)
    }

    /// How long ago the process started, from `/proc` (Linux; 10 ms resolution), or `nil` elsewhere.
    package static func processAgeMilliseconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let uptimeText = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
            let uptime = Double(uptimeText.split(separator: " ").first ?? ""),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name, which may hold spaces; start time is field 22 overall.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        let hertz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return max(0, (uptime - ticks / hertz) * 1000)
    }
}
