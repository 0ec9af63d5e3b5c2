import Analytics
import Foundation

/// The peak resident memory of this process, measured per benchmark configuration.
///
/// On Linux, writing `5` to `/proc/self/clear_refs` resets the kernel's high-water mark of the
/// resident set (`VmHWM` in `/proc/self/status`) to the current size, so the peak of one
/// configuration can be read after it runs. Where that is not allowed, the peak of the whole
/// process (`getrusage`) is all there is, and it is labelled so.
package enum ResidentMemory {
    /// What a peak covers.
    enum Scope: String, Hashable, Sendable, Codable {
        /// From the last reset: one configuration.
        case configuration
        /// The whole life of the process so far.
        case process
    }

    /// Resets the peak resident size to the current size; returns whether that worked.
    static func resetPeak() -> Bool {
        do {
            try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
            return true
        } catch {
            return false
        }
    }

    /// The peak resident size in bytes: since the last reset if `wasReset` and `VmHWM` can be read,
    /// else of the whole process.
    static func peak(wasReset: Bool) -> (bytes: Int, scope: Scope)? {
        if wasReset, let bytes = statusValue("VmHWM") { return (bytes, .configuration) }
        return processPeakBytes().map { ($0, .process) }
    }

    /// A `kB` value of `/proc/self/status`, in bytes (`VmRSS`: the resident size now).
    package static func statusValue(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }
}
