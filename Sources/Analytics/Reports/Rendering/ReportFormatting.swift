import Foundation

/// Number and chart formatting shared by the text, Markdown and HTML renderers.
package enum ReportFormatting {
    /// `value` with `digits` decimals, a real minus sign for negatives.
    package static func number(_ value: Double, digits: Int) -> String {
        let text = String(format: "%.\(digits)f", value)
        return text.hasPrefix("-") ? "−" + text.dropFirst() : text
    }

    /// A value that may be missing, as `–` when it is.
    package static func number(_ value: Double?, digits: Int) -> String {
        value.map { number($0, digits: digits) } ?? "–"
    }

    /// A share from 0 to 1 as a percentage with one decimal, such as `52.9%`.
    package static func percent(_ share: Double) -> String {
        number(share * 100, digits: 1) + "%"
    }

    /// A z-score with its sign and σ, such as `+1.2σ` or `−0.4σ`.
    package static func sigma(_ z: Double) -> String {
        abs(z) < 0.05 ? "0.0σ" : (z >= 0 ? "+" : "−") + String(format: "%.1f", abs(z)) + "σ"
    }

    /// A duration in milliseconds: whole seconds under a minute, whole minutes under an hour, else
    /// hours with one decimal.
    package static func duration(ms: Int) -> String {
        let seconds = Double(ms) / 1000
        if seconds < 60 { return String(format: "%.0f s", seconds) }
        if seconds < 3600 { return String(format: "%.0f min", seconds / 60) }
        return String(format: "%.1f h", seconds / 3600)
    }

    /// Groups thousands with a thin space: `10 000`.
    package static func count(_ value: Int) -> String {
        let digits = String(abs(value))
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return (value < 0 ? "−" : "") + groups.joined(separator: "\u{2009}")
    }

    /// `count` and the noun, singular for 1: `1 play`, `3 plays`.
    package static func count(_ value: Int, _ singular: String, _ plural: String? = nil) -> String {
        count(value) + " " + (value == 1 ? singular : plural ?? singular + "s")
    }

    /// What the renderers say of skips when no play says whether it was skipped.
    package static let skipsNotRecorded = "skips not recorded"

    /// The skips of a listening history as a sentence without its full stop: `Skips: 3 (30 s),
    /// counted apart`, noting the plays without skip data when only some have it, or
    /// `Skips not recorded (…)` when no play says whether it was skipped.
    package static func skipsSentence(of listening: MoodReport.Listening) -> String {
        guard listening.skipsAreRecorded else {
            return "Skips not recorded (this listening history does not say which plays were skipped)"
        }
        let missing = listening.plays - listening.playsWithSkipData
        return "Skips: \(count(listening.skips)) (\(duration(ms: listening.skippedMS))), counted apart"
            + (missing > 0 ? "; \(count(missing, "play")) without skip data" : "")
    }

    /// A track as `Artist, Artist – Title`.
    package static func label(_ track: MoodReport.TrackReference) -> String {
        let name = track.name.isEmpty ? "(untitled)" : track.name
        return track.artists.isEmpty ? name : track.artists.joined(separator: ", ") + " – " + name
    }

    package static let sparkLevels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// A sparkline of `values` scaled from `range` (their own range when `nil`); missing values
    /// are spaces.
    package static func sparkline(_ values: [Double?], range: ClosedRange<Double>? = nil) -> String {
        let present = values.compactMap { $0 }
        guard let low = range?.lowerBound ?? present.min(), let high = range?.upperBound ?? present.max() else {
            return String(repeating: " ", count: values.count)
        }
        return String(
            values.map { value -> Character in
                guard let value else { return " " }
                let fraction = high > low ? (value - low) / (high - low) : 0.5
                let level = Int((Swift.min(1, Swift.max(0, fraction)) * 7).rounded())
                return sparkLevels[level]
            }
        )
    }

    package static let eighths: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"]

    /// A horizontal bar `fraction` (0…1) of `width` cells long, in eighths of a cell.
    package static func bar(_ fraction: Double, width: Int) -> String {
        let eighthsLong = Int((Swift.min(1, Swift.max(0, fraction)) * Double(width * 8)).rounded())
        var text = String(repeating: "█", count: eighthsLong / 8)
        if eighthsLong % 8 > 0 { text.append(eighths[eighthsLong % 8 - 1]) }
        return text
    }

    /// Pads `text` with spaces to `width` characters (left-aligned), or right-aligns with `right`.
    package static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: Swift.max(0, width - text.count))
        return right ? padding + text : text + padding
    }

    /// The axis range a histogram's feature is drawn on, for its label.
    package static func rangeLabel(_ distribution: MoodReport.FeatureDistribution) -> String {
        guard let first = distribution.bins.first, let last = distribution.bins.last else { return "" }
        switch distribution.feature {
        case "key": return "C … B"
        case "mode": return "minor | major"
        default:
            if distribution.unit == "0–1" { return "0 … 1" }
            return "\(number(first.lower, digits: 0)) … \(number(last.upper, digits: 0)) \(distribution.unit)"
        }
    }
}
