import Features

// MARK: - Why a track was recommended

extension Recommender {
    /// The largest feature distance, in library standard deviations, still called close in a reason.
    static let closeDeviations = 0.5

    /// What made `row` close to its seeds, strongest signal first, for people: "same artist",
    /// "shares 'yacht rock'", "shares playlist 'Roadtrip'", and "sound: close in energy, valence;
    /// acousticness +1.2σ".
    ///
    /// - Parameters:
    ///   - row: The recommended row.
    ///   - seedRows: The rows of the seed tracks, when the lane is made of tracks.
    ///   - seedArtists: The main artists of the seed tracks.
    ///   - reference: The lane's reference point, in feature units (``QueryLane/reference``).
    func reasons(row: Int, seedRows: [Int]?, seedArtists: Set<Int32>, reference: [Double?]) -> [String] {
        var result: [String] = []
        let artist = attributes.artistCodes[row]
        if artist >= 0, seedArtists.contains(artist) { result.append("same artist") }
        if let seedRows {
            for block in blocks where weight(of: block.kind) > 0 {
                switch block.kind {
                case .tags:
                    if let term = block.strongestSharedTerm(of: row, with: seedRows) {
                        result.append("shares '\(term)'")
                    }
                case .coMembership:
                    if let term = block.strongestSharedTerm(of: row, with: seedRows) {
                        result.append("shares playlist '\(term)'")
                    }
                case .artist, .embedding:
                    break
                }
            }
        }
        let all = differences(row: row, reference: reference, count: AudioFeature.allCases.count)
        let close = all.filter { abs($0.deviations) <= Recommender.closeDeviations }
            .sorted {
                abs($0.deviations) < abs($1.deviations)
                    || (abs($0.deviations) == abs($1.deviations) && $0.feature.rawValue < $1.feature.rawValue)
            }
            .prefix(3)
            .map(\.feature.rawValue)
        var sound: [String] = []
        if !close.isEmpty { sound.append("close in " + close.joined(separator: ", ")) }
        if let largest = all.first, abs(largest.deviations) > Recommender.closeDeviations {
            let sign = largest.deviations < 0 ? "-" : "+"
            let size = (abs(largest.deviations) * 10).rounded() / 10
            sound.append("\(largest.feature.rawValue) \(sign)\(size)σ")
        }
        if !sound.isEmpty { result.append("sound: " + sound.joined(separator: "; ")) }
        return result
    }
}
