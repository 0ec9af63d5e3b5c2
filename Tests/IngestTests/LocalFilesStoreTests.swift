import Features
import Foundation
import GRDB
import Ingest
import Testing
import VibesTestSupport

/// Recording analysed local files: matching them to tracks, incremental runs, precedence and
/// calibration, on a real SQLite file.
@Suite struct LocalFilesStoreTests {
    /// A features CSV of `count` tracks with Spotify IDs, ISRCs and Spotify's energy `i / count`.
    private func writeLibrary(count: Int, to path: String) throws {
        var lines = [
            "track_id,track_name,track_artist,isrc,duration_ms,energy,danceability,valence,tempo,key,mode,loudness"
        ]
        for i in 0..<count {
            let id = String(format: "%022d", i).replacingOccurrences(of: "0", with: "A")
            let energy = Double(i) / Double(count)
            lines.append(
                "\(id),Song \(i),Artist \(i % 7),QZZZZ26\(String(format: "%05d", i)),\(180_000 + i * 1000),\(energy),0.5,0.5,120,\(i % 12),1,-8"
            )
        }
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// One analysed file: what the analysis found, the file it was found in and its content hash.
    struct AnalysedFile {
        var analysis: AudioFileAnalysis
        var fingerprint: LocalFileFingerprint
        var contentHash: String
    }

    private func analysis(
        path: String,
        hash: String,
        energy: Double = 0.5,
        durationMS: Int = 200_000,
        title: String? = nil,
        artist: String? = nil,
        isrc: String? = nil,
        spotifyID: SpotifyID? = nil,
        modified: Int64 = 1
    ) -> AnalysedFile {
        let analysis = AudioFileAnalysis(
            durationMS: durationMS,
            features: AudioFeatures(energy: energy, key: 4, loudness: -9, mode: 0, tempo: 100),
            provenance: [.energy: .estimated, .tempo: .measured],
            confidence: [.energy: 0.5, .tempo: 0.9],
            descriptors: AudioDescriptors(
                integratedLoudness: -9,
                loudnessRange: 6,
                tempoConfidence: 0.9,
                beatRegularity: 0.8,
                onsetRate: 2,
                spectralCentroid: 2000,
                spectralFlatness: 0.1,
                highFrequencyShare: 0.2,
                lowFrequencyShare: 0.3,
                syllabicModulation: 0.1,
                keyCorrelation: 0.7,
                tuningCents: 0,
                silentShare: 0,
                pitchClassProfile: []
            ),
            tags: AudioFileTags(title: title, artist: artist, isrc: isrc, spotifyID: spotifyID),
            stream: AudioStreamFormat(codec: "flac", sampleRate: 44_100, channels: 2),
            analyzer: "test-1"
        )
        return AnalysedFile(
            analysis: analysis,
            fingerprint: LocalFileFingerprint(path: path, size: 1000, modifiedNS: modified),
            contentHash: hash
        )
    }

    @Test func filesMatchByISRCThenSpotifyLinkThenArtistTitleAndDuration() throws {
        try withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            try writeLibrary(count: 10, to: directory + "/library.csv")
            _ = try store.importFile(at: directory + "/library.csv")
            let tracksBefore = try store.trackCount(scope: .all)

            let byISRC = try store.recordLocalAnalysis(analysis(path: "/m/a.flac", hash: "a1", isrc: "QZZZZ2600003"))
            #expect(byISRC.match == .isrc)
            #expect(byISRC.stableID == "AAAAAAAAAAAAAAAAAAAAA3")

            let link = try #require(SpotifyID("AAAAAAAAAAAAAAAAAAAAA5"))
            let byLink = try store.recordLocalAnalysis(analysis(path: "/m/b.flac", hash: "b1", spotifyID: link))
            #expect(byLink.match == .spotifyID)
            #expect(byLink.stableID == link.rawValue)

            // Song 6 lasts 186 s: 1.5 s off matches, 5 s off is another recording.
            let close = try store.recordLocalAnalysis(
                analysis(path: "/m/c.flac", hash: "c1", durationMS: 187_500, title: "song 6", artist: "ARTIST 6")
            )
            #expect(close.match == .artistTitle)
            #expect(close.stableID == "AAAAAAAAAAAAAAAAAAAAA6")
            let far = try store.recordLocalAnalysis(
                analysis(path: "/m/d.flac", hash: "d1", durationMS: 191_000, title: "Song 6", artist: "Artist 6")
            )
            #expect(far.match == .newTrack)
            #expect(far.stableID == "local:d1")
            #expect(try store.trackCount(scope: .all) == tracksBefore + 1)

            let untagged = try store.recordLocalAnalysis(analysis(path: "/m/Some Song.ogg", hash: "e1"))
            #expect(untagged.match == .newTrack)
            let summary = try #require(try store.trackSummaries(for: [untagged.trackID])[untagged.trackID])
            #expect(summary.name == "Some Song")
            #expect(summary.spotifyID == nil)
            #expect(try store.trackCount(scope: .library) == tracksBefore + 2)
        }
    }

    @Test func spotifyValuesOutrankLocalOnesAndLocalFillsTheRest() throws {
        try withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            try writeLibrary(count: 4, to: directory + "/library.csv")
            _ = try store.importFile(at: directory + "/library.csv")
            let matched = try store.recordLocalAnalysis(
                analysis(path: "/m/a.flac", hash: "a1", energy: 0.99, isrc: "QZZZZ2600002")
            )
            let own = try store.recordLocalAnalysis(analysis(path: "/m/b.flac", hash: "b1", energy: 0.42))
            let table = try store.featureTable()
            func value(_ trackID: Int64, _ feature: AudioFeature) throws -> Float? {
                table.value(row: try #require(table.trackIDs.firstIndex(of: trackID)), feature: feature)
            }
            #expect(try value(matched.trackID, .energy) == 0.5)
            #expect(try value(own.trackID, .energy) == 0.42)
            #expect(try value(own.trackID, .liveness) == nil)
            let status = try store.featureStatus()
            #expect(status.sources.contains { $0.source == "local:test-1" && $0.tracks == 2 && $0.preferred == 1 })
        }
    }

    @Test func unchangedFilesAreSkippedAndFailuresRetried() throws {
        try withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            let record = analysis(path: "/m/a.flac", hash: "a1")
            #expect(try store.localFileState(of: record.fingerprint, analyzer: "test-1") == .new)
            let outcome = try store.recordLocalAnalysis(record)
            #expect(
                try store.localFileState(of: record.fingerprint, analyzer: "test-1")
                    == .unchanged(trackID: outcome.trackID, stableID: "local:a1")
            )
            // Another analyser version, or a touched file, is analysed again.
            #expect(try store.localFileState(of: record.fingerprint, analyzer: "test-2") == .new)
            var touched = record.fingerprint
            touched.modifiedNS += 1
            #expect(try store.localFileState(of: touched, analyzer: "test-1") == .new)

            // The same bytes under another name join the same track without analysis.
            let renamed = LocalFileFingerprint(path: "/m/renamed.flac", size: 1000, modifiedNS: 5)
            let copy = try #require(try store.recordLocalCopy(of: renamed, contentHash: "a1", analyzer: "test-1"))
            #expect(copy.trackID == outcome.trackID)
            #expect(try store.recordLocalCopy(of: renamed, contentHash: "zz", analyzer: "test-1") == nil)

            let broken = LocalFileFingerprint(path: "/m/broken.mp3", size: 10, modifiedNS: 1)
            try store.recordLocalFailure(of: broken, analyzer: "test-1", reason: "not audio")
            #expect(try store.localFileState(of: broken, analyzer: "test-1") == .new)
            #expect(try store.storedLocalFile(path: "/m/broken.mp3")?.error == "not audio")

            // Analysing an edited file again keeps its track.
            var edited = analysis(path: "/m/a.flac", hash: "a2", energy: 0.8, title: "New Title", modified: 9)
            edited.fingerprint.size = 1200
            let again = try store.recordLocalAnalysis(edited)
            #expect(again.trackID == outcome.trackID)
            let stored = try #require(try store.storedLocalFile(path: "/m/a.flac"))
            #expect(stored.features.energy == 0.8)
            #expect(stored.provenance["tempo"] == "measured")
            #expect(try store.trackSummaries(for: [again.trackID])[again.trackID]?.name == "New Title")
            #expect(
                try store.localFilePaths(for: [again.trackID]) == [again.trackID: "/m/renamed.flac"]
                    || store.localFilePaths(for: [again.trackID]) == [again.trackID: "/m/a.flac"]
            )
        }
    }

    @Test func calibrationMapsLocalEstimatesOntoTheSpotifyScale() throws {
        try withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            let count = 80
            try writeLibrary(count: count, to: directory + "/library.csv")
            _ = try store.importFile(at: directory + "/library.csv")
            // Local energy is a monotone distortion of Spotify's: 0.2 + 0.5·e³.
            func distorted(_ energy: Double) -> Double { 0.2 + 0.5 * pow(energy, 3) }
            for i in 0..<count {
                let energy = Double(i) / Double(count)
                try store.recordLocalAnalysis(
                    analysis(
                        path: "/m/\(i).flac",
                        hash: "h\(i)",
                        energy: distorted(energy),
                        isrc: "QZZZZ26\(String(format: "%05d", i))"
                    )
                )
            }
            let own = try store.recordLocalAnalysis(analysis(path: "/m/own.flac", hash: "own", energy: distorted(0.7)))
            func energyOfOwnTrack() throws -> Double? {
                let table = try store.featureTable()
                return table.value(row: try #require(table.trackIDs.firstIndex(of: own.trackID)), feature: .energy)
                    .map(Double.init)
            }
            #expect(abs(try #require(try energyOfOwnTrack()) - distorted(0.7)) < 1e-6)

            let report = try store.calibrateLocalFeatures()
            let energy = try #require(report.fields.first { $0.feature == .energy })
            #expect(energy.sharedTracks == count)
            #expect(energy.isApplied)
            let raw = try #require(energy.raw)
            let calibrated = try #require(energy.calibrated)
            #expect(calibrated.meanAbsoluteError < raw.meanAbsoluteError / 3)
            #expect(calibrated.rankCorrelation > 0.95)
            #expect(abs(try #require(try energyOfOwnTrack()) - 0.7) < 0.03)
            // Local key 4 minor agrees with none of the imported keys (all major).
            #expect(report.keyAgreement == 0)
            #expect(try store.featureStatus().calibration?.sharedTracks == count)
        }
    }

    @Test func tagsHeardBecomeAudioTagTagsReplacedByTheNextAnalysis() throws {
        try withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            var file = analysis(path: "/m/song.flac", hash: "s1")
            file.analysis.audioTags = AudioTagProbabilities(
                model: "MSD_musicnn",
                probabilities: ["metal": 0.6, "rock": 0.3, "heavy metal": 0.3, "acoustic": 0.02, "pop": 0.09]
            )
            let outcome = try store.recordLocalAnalysis(file)
            let kind = AudioTagProbabilities.tagKind
            #expect(try store.trackLabels(kind: kind)[outcome.trackID] == ["metal", "rock", "heavy metal"])
            let stored = try #require(try store.storedLocalFile(path: "/m/song.flac")?.detailsJSON)
            let details = try JSONDecoder().decode(AudioFileAnalysis.Details.self, from: Data(stored.utf8))
            #expect(details.audioTags == file.analysis.audioTags)

            file.analysis.audioTags = AudioTagProbabilities(model: "MSD_musicnn", probabilities: ["jazz": 0.4])
            try store.recordLocalAnalysis(file)
            #expect(try store.trackLabels(kind: kind)[outcome.trackID] == ["jazz"])
            file.analysis.audioTags = nil
            try store.recordLocalAnalysis(file)
            #expect(try store.trackLabels(kind: kind)[outcome.trackID] == nil)
        }
    }

    @Test func theEmbeddingHeardIsKeptPerTrackAndReplacedByTheNextAnalysis() throws {
        try withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            var file = analysis(path: "/m/song.flac", hash: "s1")
            file.analysis.audioTags = AudioTagProbabilities(model: "MSD_musicnn", probabilities: ["rock": 0.4])
            file.analysis.embedding = [0.5, -1.25, 3e-7]
            let outcome = try store.recordLocalAnalysis(file)
            let other = try store.recordLocalAnalysis(analysis(path: "/m/other.flac", hash: "s2", title: "Other"))
            #expect(
                try store.audioEmbeddings(of: [outcome.trackID, other.trackID]) == [
                    outcome.trackID: [0.5, -1.25, 3e-7]
                ]
            )
            #expect(try store.audioEmbeddings(of: [other.trackID]).isEmpty)

            file.analysis.embedding = [2, 1, 0]
            try store.recordLocalAnalysis(file)
            #expect(try store.audioEmbeddings(of: [outcome.trackID]) == [outcome.trackID: [2, 1, 0]])
            // Too short for the tagger: no tags, no embedding.
            file.analysis.audioTags = nil
            file.analysis.embedding = nil
            try store.recordLocalAnalysis(file)
            #expect(try store.audioEmbeddings(of: [outcome.trackID]).isEmpty)
        }
    }

    @Test func fewerThanFiftySharedTracksKeepTheRawEstimates() throws {
        try withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            try writeLibrary(count: 20, to: directory + "/library.csv")
            _ = try store.importFile(at: directory + "/library.csv")
            for i in 0..<20 {
                try store.recordLocalAnalysis(
                    analysis(
                        path: "/m/\(i).flac",
                        hash: "h\(i)",
                        energy: 0.9,
                        isrc: "QZZZZ26\(String(format: "%05d", i))"
                    )
                )
            }
            let report = try store.calibrateLocalFeatures()
            #expect(report.sharedTracks == 20)
            #expect(report.fields.allSatisfy { !$0.isApplied && $0.calibrated == nil })
        }
    }
}

extension LibraryStore {
    @discardableResult
    fileprivate func recordLocalAnalysis(_ file: LocalFilesStoreTests.AnalysedFile) throws -> LocalFileOutcome {
        try recordLocalAnalysis(file.analysis, of: file.fingerprint, contentHash: file.contentHash)
    }
}
