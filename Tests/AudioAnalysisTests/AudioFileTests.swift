import AudioAnalysis
import Foundation
import Testing
import VibesTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Files the analyser must refuse or survive: special files, names that are not UTF-8, and
/// streams at rates and channel counts the audio libraries cannot take.
@Suite struct AudioFileTests {
    /// `name` with the byte 0xE9 (é in Latin-1), which is not valid UTF-8 alone.
    static func latin1Name(_ stem: String, extension pathExtension: String) -> [UInt8] {
        Array(stem.utf8) + [0xE9] + Array(".\(pathExtension)".utf8)
    }

    /// Writes `samples` as a WAV file at a path given as bytes, which `Data.write` cannot name.
    static func writeWAV(_ samples: [Float], sampleRate: Int = 44_100, to path: AudioFilePath) throws {
        let scratch = NSTemporaryDirectory() + "vibes-wav-" + UUID().uuidString + ".wav"
        try TestSignals.writeWAV(samples, sampleRate: sampleRate, to: scratch)
        defer { unlink(scratch) }
        let target = path.bytes.map { CChar(bitPattern: $0) } + [0]
        try #require(rename(scratch, target) == 0, "rename: \(String(cString: strerror(errno)))")
    }

    // MARK: - Paths

    @Test func aNameThatIsNotUTF8IsShownEscaped() {
        let path = AudioFilePath(bytes: Array("/music/".utf8) + Self.latin1Name("caf", extension: "WAV"))
        #expect(!path.isValidUTF8)
        #expect(path.description == "/music/caf\\xE9.WAV")
        #expect(path.pathExtension == "wav")
        let utf8 = AudioFilePath("/music/café.flac")
        #expect(utf8.isValidUTF8)
        #expect(utf8.description == "/music/café.flac")
        // A cut-off sequence and a stray continuation byte, each byte escaped.
        #expect(AudioFilePath(bytes: [0x61, 0xC3, 0x80, 0xE2, 0x82, 0x62, 0x0A]).description == "aÀ\\xE2\\x82b\n")
    }

    // MARK: - Special files

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        try withTemporaryDirectory { directory in
            let fifo = directory + "/pipe.wav"
            try #require(mkfifo(fifo, 0o600) == 0)
            // Opening a FIFO for reading blocks until a writer comes: this returns at once or never.
            #expect(throws: AudioAnalysisError.notRegularFile(path: fifo, kind: "a FIFO (named pipe)")) {
                try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: fifo))
            }
        }
    }

    @Test(arguments: ["/dev/zero", "/dev/null"])
    func aDeviceIsRefused(path: String) throws {
        #expect(throws: AudioAnalysisError.notRegularFile(path: path, kind: "a character device")) {
            try AudioFile(opening: AudioFilePath(path))
        }
    }

    @Test func aFolderAndAMissingFileAreRefused() throws {
        try withTemporaryDirectory { directory in
            #expect(throws: AudioAnalysisError.notRegularFile(path: directory, kind: "a folder")) {
                try AudioFile(opening: AudioFilePath(directory))
            }
            do {
                _ = try AudioFile(opening: AudioFilePath(directory + "/missing.wav"))
                Issue.record("a missing file was opened")
            } catch let error as AudioAnalysisError {
                guard case .cannotOpen(let path, let reason) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(path == directory + "/missing.wav")
                #expect(reason.contains("No such file"))
            }
        }
    }

    // MARK: - Names that are not UTF-8

    @Test func aFileWhoseNameIsNotUTF8IsFoundAndAnalysed() throws {
        try withTemporaryDirectory { directory in
            let folder = AudioFilePath(directory)
            let bytes = folder.bytes + Array("/".utf8) + Self.latin1Name("caf", extension: "wav")
            let path = AudioFilePath(bytes: bytes)
            try Self.writeWAV(TestSignals.clicks(bpm: 120, seconds: 8), to: path)
            defer { unlink(bytes.cString) }

            let listing = AudioFiles.find(in: [folder])
            #expect(listing.files == [path])
            let analysis = try AudioAnalyzer().analyze(AudioFile(opening: path))
            #expect(analysis.durationMS == 8000)
            let tempo = try #require(analysis.features.tempo)
            #expect(abs(tempo - 120) < 120 * 0.04)
        }
    }

    @Test func aFIFOInAFolderIsNotListed() throws {
        try withTemporaryDirectory { directory in
            try #require(mkfifo(directory + "/pipe.wav", 0o600) == 0)
            try TestSignals.writeWAV(TestSignals.clicks(bpm: 120, seconds: 2), to: directory + "/song.wav")
            let listing = AudioFiles.find(in: [directory])
            #expect(listing.files.map(\.description) == [directory + "/song.wav"])
        }
    }

    // MARK: - Unsupported streams

    @Test(arguments: [1, 10_000_000])
    func anUnsupportedSampleRateIsAnErrorForThatFile(sampleRate: Int) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/rate.wav"
            try TestSignals.writeWAV(
                [Float](repeating: 0.1, count: max(8, sampleRate / 100)),
                sampleRate: sampleRate,
                to: path
            )
            #expect(
                throws: AudioAnalysisError.unsupportedSampleRate(
                    path: path,
                    sampleRate: sampleRate,
                    supported: AudioAnalyzer.supportedSampleRates
                )
            ) {
                try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: path))
            }
        }
    }

    @Test func tooManyChannelsAreAnErrorForThatFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/channels.wav"
            try TestSignals.writeWAV(
                TestSignals.clicks(bpm: 120, seconds: 1),
                sampleRate: 8_000,
                channels: 100,
                to: path
            )
            #expect(
                throws: AudioAnalysisError.unsupportedChannelCount(
                    path: path,
                    channels: 100,
                    supported: AudioAnalyzer.supportedChannelCounts
                )
            ) {
                try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: path))
            }
        }
    }

    @Test func noChannelsAreAnErrorForThatFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/silent.wav"
            try TestSignals.writeWAV([Float](repeating: 0, count: 100), channels: 0, to: path)
            #expect(throws: AudioAnalysisError.self) {
                try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: path))
            }
        }
    }

    @Test func theSupportedLimitsAreAnalysed() throws {
        try withTemporaryDirectory { directory in
            for rate in [AudioAnalyzer.supportedSampleRates.lowerBound, 192_000] {
                let path = directory + "/\(rate).wav"
                try TestSignals.writeWAV(
                    TestSignals.clicks(bpm: 120, seconds: 2, sampleRate: rate),
                    sampleRate: rate,
                    to: path
                )
                let analysis = try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: path))
                #expect(analysis.stream.sampleRate == rate)
                #expect(abs(analysis.durationMS - 2000) <= 1)
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// The bytes as a NUL-terminated C string.
    fileprivate var cString: [CChar] { map { CChar(bitPattern: $0) } + [0] }
}
