import Foundation
import Ingest
import VibesCommandSupport
import VibesEngine

extension VibesReport {
    /// The report as a text table for a terminal.
    ///
    /// - Parameter width: The terminal's width: the header wraps, the table keeps the columns
    ///   that fit (number, vibe, size, share, energy, valence, tempo) with long names shortened
    ///   with "…", and example tracks are cut to one line each. `nil` (piped, or `--wide`) prints
    ///   every column.
    func renderedTable(width: Int? = nil) -> String {
        var lines: [String] = []
        let schema = run.scaling.schema
        let weights = schema.entries.filter { $0.weight != 1 }.sorted { $0.feature.rawValue < $1.feature.rawValue }
            .map { "\($0.feature.rawValue)×\(format($0.weight, digits: 2))" }
        lines += TerminalWidth.wrap(
            "Run \(run.id ?? 0) (\(ClusteringRunScope(wireValue: scope))): \(run.clusterCount) vibes from \(run.trackCount) tracks"
                + (run.excludedTrackCount > 0 ? " (\(run.excludedTrackCount) left out for missing features)" : "")
                + "; k-means, \(schema.scaling.rawValue) over \(schema.features.map(\.rawValue).joined(separator: ", "))"
                + (weights.isEmpty ? "" : " weighted \(weights.joined(separator: ", "))")
                + ", seed \(run.seed), n-init \(run.restartCount), \(run.iterationCount) iterations"
                + (run.hasConverged ? "" : " (not converged)") + ".",
            to: width
        )
        lines += TerminalWidth.wrap(
            "Scores: inertia \(format(run.inertia, digits: 1)), silhouette \(optional(run.silhouette, digits: 3)), "
                + "Calinski–Harabasz \(optional(run.calinskiHarabasz, digits: 1)), Davies–Bouldin \(optional(run.daviesBouldin, digits: 3)).",
            to: width
        )
        if let scan = run.clusterCountScan {
            lines.append("")
            lines.append("Choosing k (* the most vibes whose silhouette is within 0.01 of the best):")
            lines.append(
                row(
                    ["", "k", "inertia", "silhouette", "Calinski–Harabasz", "Davies–Bouldin"],
                    widths: [1, 3, 12, 11, 18, 15]
                )
            )
            for entry in scan {
                lines.append(
                    row(
                        [
                            entry.clusterCount == run.clusterCount ? "*" : "", "\(entry.clusterCount)",
                            format(entry.inertia, digits: 1), optional(entry.silhouette, digits: 3),
                            optional(entry.calinskiHarabasz, digits: 1), optional(entry.daviesBouldin, digits: 3),
                        ],
                        widths: [1, 3, 12, 11, 18, 15]
                    )
                )
            }
        }
        lines.append("")
        let longestName = max(4, vibes.map(\.name.count).max() ?? 0)
        if let width {
            // #, Vibe, Tracks, Share, Energy, Valence, Tempo: 6 + 6 + 6 + 7 + 6 + 2 and 2 between each.
            let nameWidth = max(8, min(longestName, width - 45))
            let widths = [2, nameWidth, 6, 6, 6, 7, 5]
            lines.append(row(["#", "Vibe", "Tracks", "Share", "Energy", "Valence", "Tempo"], widths: widths))
            for vibe in vibes {
                lines.append(
                    row(
                        [
                            "\(vibe.number)", vibe.name.fitted(to: nameWidth), "\(vibe.size)",
                            format(vibe.share * 100, digits: 1) + "%", optional(vibe.means["energy"], digits: 2),
                            optional(vibe.means["valence"], digits: 2), optional(vibe.means["tempo"], digits: 0),
                        ],
                        widths: widths
                    )
                )
                for example in vibe.examples {
                    let artists = example.artists.isEmpty ? "" : example.artists.joined(separator: ", ") + " – "
                    lines.append(("    " + artists + example.name).fitted(to: width))
                }
            }
            lines.append("(--wide shows mood, danceability, acousticness, loudness and what stands out)")
            return lines.joined(separator: "\n") + "\n"
        }
        let widths = [2, longestName, 6, 6, 15, 6, 7, 5, 8, 6, 8]
        lines.append(
            row(
                [
                    "#", "Vibe", "Tracks", "Share", "Mood", "Energy", "Valence", "Dance", "Acoustic", "Tempo",
                    "Loudness",
                ],
                widths: widths
            )
                + "  Stands out"
        )
        for vibe in vibes {
            let standsOut = vibe.distinguishingFeatures.prefix(3).map { feature in
                let z = vibe.zScores[feature] ?? 0
                return "\(feature) \(z >= 0 ? "+" : "−")\(format(abs(z), digits: 1))σ"
            }
            lines.append(
                row(
                    [
                        "\(vibe.number)", vibe.name, "\(vibe.size)", format(vibe.share * 100, digits: 1) + "%",
                        vibe.mood.rawValue,
                        optional(vibe.means["energy"], digits: 2), optional(vibe.means["valence"], digits: 2),
                        optional(vibe.means["danceability"], digits: 2),
                        optional(vibe.means["acousticness"], digits: 2),
                        optional(vibe.means["tempo"], digits: 0), optional(vibe.means["loudness"], digits: 1) + " dB",
                    ],
                    widths: widths
                ) + "  " + standsOut.joined(separator: ", ")
            )
            for example in vibe.examples {
                let artists = example.artists.isEmpty ? "" : example.artists.joined(separator: ", ") + " – "
                lines.append("    " + artists + example.name)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func row(_ cells: [String], widths: [Int]) -> String {
        zip(cells, widths).map { cell, width in
            cell.count >= width ? cell : cell + String(repeating: " ", count: width - cell.count)
        }.joined(separator: "  ")
    }

    private func format(_ value: Double, digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    private func optional(_ value: Double?, digits: Int) -> String {
        value.map { format($0, digits: digits) } ?? "–"
    }
}
