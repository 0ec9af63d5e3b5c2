import Foundation
import Ingest

extension CalibrationReport {
    /// How local analysis agrees with Spotify's values, before and after calibration, as lines.
    package var describedLines: [String] {
        let report = self
        var lines: [String] = []
        if report.sharedTracks < report.minimumSharedTracks {
            lines.append(
                "Calibration: \(report.sharedTracks) tracks have both local values and Spotify's; at least \(report.minimumSharedTracks) are needed, so the raw local estimates are used."
            )
        } else {
            lines.append(
                "Calibration of local estimates on \(report.sharedTracks) tracks that also have Spotify's values (cross-validated):"
            )
        }
        guard report.sharedTracks >= 2 else { return lines }
        lines.append("  feature            tracks   rank corr. raw → calibrated   mean abs. error raw → calibrated")
        for field in report.fields {
            guard let raw = field.raw else { continue }
            let after = field.calibrated
            let rank =
                String(format: "%+.2f", raw.rankCorrelation) + " → "
                + (after.map { String(format: "%+.2f", $0.rankCorrelation) } ?? "  —  ")
            let error =
                String(format: "%.3f", raw.meanAbsoluteError) + " → "
                + (after.map { String(format: "%.3f", $0.meanAbsoluteError) } ?? "  —  ")
            lines.append(
                "  \(field.feature.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)) \(String(format: "%6d", field.sharedTracks))   \(rank.padding(toLength: 28, withPad: " ", startingAt: 0)) \(error)"
            )
        }
        if let tempo = report.tempoAgreement {
            lines.append(String(format: "  tempo within 4%% (half or double time counts): %.0f%%", tempo * 100))
        }
        if let key = report.keyAgreement {
            lines.append(String(format: "  key and mode equal: %.0f%%", key * 100))
        }
        return lines
    }
}
