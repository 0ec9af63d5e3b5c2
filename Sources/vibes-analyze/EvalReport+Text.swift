import Analytics
import Features
import Foundation
import VibesCommandSupport
import VibesEngine

extension EvalReport {
    /// The report for people; on a terminal of `width` columns, long lines wrap.
    func text(width: Int? = nil) -> String {
        let e = evaluation
        var lines: [String] = []
        if !excludedPlaylists.isEmpty {
            let names = excludedPlaylists.map { playlist in
                let why =
                    playlist.reason == .likedSongs
                    ? "liked songs" : "\(Int((playlist.share * 100).rounded())) % of the tracks"
                return "\"\(TerminalText.singleLine(playlist.name))\" (\(why))"
            }
            lines.append(
                "left out \(excludedPlaylists.count) catch-all playlist\(excludedPlaylists.count == 1 ? "" : "s"): \(names.joined(separator: ", ")) (--include-catch-all keeps them)"
            )
        }
        lines += [
            "label \(label): \(e.labelCount) labels, \(e.seedCount) seed tracks",
            "precision@\(e.k): \(e.precision.formatted(digits: 3))  (random \(e.randomBaseline.formatted(digits: 3)), \(e.lift.formatted(digits: 2))× chance)",
        ]
        // Names are shortened on a terminal only; piped, every name is whole.
        let isTerminal = isatty(1) != 0
        for item in e.perLabel.prefix(12) {
            let name = TerminalText.singleLine(item.label)
            lines.append(
                "  \((isTerminal ? name.truncated(to: 24) : name).padding(to: 24)) \(item.seedCount.padded(to: 6)) tracks  precision \(item.precision.formatted(digits: 3))  random \(item.randomBaseline.formatted(digits: 3))"
            )
        }
        if let interval = comparison.baselines.first?.difference {
            lines.append(
                "baselines, same \(e.seedCount) seeds: precision@\(e.k), and this tool − baseline with a paired bootstrap \(Int((interval.confidenceLevel * 100).rounded())) % CI (\(interval.resampleCount) resamples over seeds, seed \(comparison.bootstrapSeed))"
            )
        }
        let nameWidth = 36
        lines.append(
            "  \("this tool".padding(to: nameWidth)) \(e.precision.formatted(digits: 4))"
                + (comparison.beyondArtistPrecision.map { "  beyond the seed's artist \($0.formatted(digits: 4))" }
                    ?? "")
        )
        for baseline in comparison.baselines {
            var line =
                "  \(baseline.name.padding(to: nameWidth)) \(baseline.precision.formatted(digits: 4))  difference \(baseline.difference.summary)"
            if let beyond = baseline.beyondArtistPrecision, let difference = baseline.beyondArtistDifference {
                line += "  beyond the seed's artist \(beyond.formatted(digits: 4))  difference \(difference.summary)"
            }
            lines.append(line)
        }
        lines.append(
            "  \("random (exact expectation)".padding(to: nameWidth)) \(e.randomBaseline.formatted(digits: 4))  difference \(comparison.randomDifference.summary)"
        )
        if let best = comparison.bestBaseline {
            let verdict =
                best.difference.isAboveZero
                ? "beats" : best.difference.isBelowZero ? "is below" : "is not distinguishable from"
            lines.append(
                "this tool \(verdict) the best naive baseline (\(best.name)): \(best.ratio(to: e.precision).formatted(digits: 2))×"
            )
        }
        if let best = comparison.bestBeyondArtistBaseline, let subject = comparison.beyondArtistPrecision,
            let baseline = best.beyondArtistPrecision, let difference = best.beyondArtistDifference
        {
            let verdict =
                difference.isAboveZero
                ? "beats" : difference.isBelowZero ? "is below" : "is not distinguishable from"
            let ratio = baseline > 0 ? (subject / baseline).formatted(digits: 2) + "×" : "n/a"
            lines.append(
                "beyond the seed's artist, this tool \(verdict) the best naive baseline (\(best.name)): \(ratio)"
            )
        }
        for block in blocks {
            lines.append(
                block.leftOut.isEmpty
                    ? "this tool (\(comparison.subjectName)) uses the \(block.block) block (\(block.tracks) tracks)"
                    : "the \(block.block) block (\(block.tracks) tracks) is left out: \(block.leftOut.joined(separator: ", ")) derive from the \(label) label"
            )
        }
        if let heldOut {
            lines.append(
                "held-out playlists: \(heldOut.playlistCount) playlists in \(heldOut.foldCount) folds, \(heldOut.queryCount) queries; each fold graded with only the other folds' playlists known (co-membership built from them, weights learned on them); variant − default with a paired bootstrap 95 % CI"
            )
            lines.append("  \("default similarity".padding(to: 48)) \(heldOut.defaultPrecision.formatted(digits: 4))")
            for variant in heldOut.variants {
                lines.append(
                    "  \(variant.name.padding(to: 48)) \(variant.precision.formatted(digits: 4))  difference \(variant.difference.summary)"
                )
            }
        } else if let heldOutNote {
            lines.append(heldOutNote)
        }
        if let kMeans, let clusterCount {
            lines.append(
                "cluster agreement: NMI \(kMeans.normalizedMutualInformation.formatted(digits: 3)), ARI \(kMeans.adjustedRandIndex.formatted(digits: 3)) (k-means, k = \(clusterCount), seed \(seed))"
            )
        }
        if let savedRun {
            let agreement = savedRun.agreement
            lines.append(
                "run \(savedRun.id) agreement: NMI \(agreement.normalizedMutualInformation.formatted(digits: 3)), ARI \(agreement.adjustedRandIndex.formatted(digits: 3)) (k = \(savedRun.clusterCount), \(agreement.itemCount) labelled tracks)"
            )
        }
        return lines.flatMap { TerminalWidth.wrap($0, to: width, indent: "    ") }.joined(separator: "\n")
    }
}

extension OrderingEvalReport {
    /// The report for people; on a terminal of `width` columns, long lines wrap.
    func text(width: Int? = nil) -> String {
        let c = comparison
        var lines: [String] = []
        if !excludedPlaylists.isEmpty {
            lines.append(
                "left out \(excludedPlaylists.count) catch-all playlist\(excludedPlaylists.count == 1 ? "" : "s") (--include-catch-all keeps them)"
            )
        }
        let tracks = c.playlists.reduce(0) { $0 + $1.trackCount }
        lines.append(
            "ordering: \(c.playlists.count) playlists of \(lengths.lowerBound)–\(lengths.upperBound) tracks (\(tracks) tracks)"
                + (skippedPlaylistCount > 0 ? "; \(skippedPlaylistCount) shorter or longer left out" : "")
        )
        if let interval = c.playlists.isEmpty ? nil : c.greedyDifference {
            lines.append(
                "transition cost per step (0–2, lower is smoother; greedy: the best of greedy nearest-neighbour tours from every start), and flow − baseline with a paired bootstrap \(Int((interval.confidenceLevel * 100).rounded())) % CI (\(interval.resampleCount) resamples over playlists, seed \(c.bootstrapSeed))"
            )
        }
        let nameWidth = 30
        lines.append("  \("flow".padding(to: nameWidth)) \(c.flow.formatted(digits: 4))")
        lines.append(
            "  \("greedy nearest neighbour".padding(to: nameWidth)) \(c.greedy.formatted(digits: 4))  difference \(c.greedyDifference.summary)"
        )
        lines.append(
            "  \("random (exact expectation)".padding(to: nameWidth)) \(c.random.formatted(digits: 4))  difference \(c.randomDifference.summary)"
        )
        lines.append("flow is lower than greedy on \(c.lower), equal on \(c.equal) and higher on \(c.higher) playlists")
        let verdict =
            c.greedyDifference.isBelowZero
            ? "is smoother than" : c.greedyDifference.isAboveZero ? "is rougher than" : "is not distinguishable from"
        lines.append("flow \(verdict) the greedy baseline")
        return lines.flatMap { TerminalWidth.wrap($0, to: width, indent: "    ") }.joined(separator: "\n")
    }
}

extension PairedBootstrap {
    /// "+0.0105 [+0.0081, +0.0130]".
    var summary: String {
        "\(estimate.signed(digits: 4)) [\(lower.signed(digits: 4)), \(upper.signed(digits: 4))]"
    }
}

extension Double {
    /// The value with a sign and a fixed number of decimals, such as `+0.0105` or `-0.0021`.
    func signed(digits: Int) -> String {
        let text = Swift.abs(self).formatted(digits: digits)
        let isZero = text.allSatisfy { $0 == "0" || $0 == "." }
        return (self < 0 && !isZero ? "-" : "+") + text
    }
}
