import Foundation

/// Why a file could not be analysed. Each case names the file and carries the facts; what to do
/// about it is for the caller to say.
public enum AudioAnalysisError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file has no bytes.
    case emptyFile(path: String)
    /// The path names no file, or one this user cannot read (`reason` is the system's).
    case cannotOpen(path: String, reason: String)
    /// The path names a FIFO, a device, a socket or a folder (`kind`, in words), which is refused
    /// before it is opened: reading one could wait or go on forever.
    case notRegularFile(path: String, kind: String)
    /// FFmpeg could not open or parse the file (not audio, or a damaged header).
    case unreadable(path: String, reason: String)
    /// The file holds no audio stream.
    case noAudioStream(path: String)
    /// The file's codec cannot be decoded by this build of FFmpeg.
    case unsupported(path: String, codec: String, reason: String)
    /// The stream's sample rate, in Hz, is outside the ``AudioAnalyzer/supportedSampleRates``.
    case unsupportedSampleRate(path: String, sampleRate: Int, supported: ClosedRange<Int>)
    /// The stream's channel count is outside the ``AudioAnalyzer/supportedChannelCounts``.
    case unsupportedChannelCount(path: String, channels: Int, supported: ClosedRange<Int>)
    /// The decoder produced a block of more samples per channel than ``AudioAnalyzer/maximumFrameSize``.
    case unsupportedFrameSize(path: String, samples: Int, maximum: Int)
    /// A call into FFmpeg, libebur128 or aubio (`call`) failed where it should not: out of memory,
    /// or a format the library refuses.
    case libraryFailure(path: String, call: String)
    /// Decoding started but produced no audio.
    case decodeFailed(path: String, reason: String)
    /// The stream ends long before the duration its container states: a download cut short.
    case truncated(path: String, decodedSeconds: Double, declaredSeconds: Double)
    /// Too little audio to measure anything.
    case tooShort(path: String, seconds: Double, minimum: Double)

    /// The file the error is about.
    public var path: String {
        switch self {
        case .emptyFile(let path), .cannotOpen(let path, _), .notRegularFile(let path, _),
            .unreadable(let path, _), .noAudioStream(let path), .unsupported(let path, _, _),
            .unsupportedSampleRate(let path, _, _), .unsupportedChannelCount(let path, _, _),
            .unsupportedFrameSize(let path, _, _), .libraryFailure(let path, _), .decodeFailed(let path, _),
            .truncated(let path, _, _), .tooShort(let path, _, _):
            path
        }
    }

    /// The reason alone, without the path: what a per-file report prints beside the path.
    public var reason: String {
        switch self {
        case .emptyFile: "the file is empty (0 bytes)"
        case .cannotOpen(_, let reason): "cannot be opened (\(reason))"
        case .notRegularFile(_, let kind):
            "\(kind), not a regular file; it was not opened (name audio files or folders)"
        case .unreadable(_, let reason): "not a readable audio file (\(reason))"
        case .noAudioStream: "the file holds no audio stream"
        case .unsupported(_, let codec, let reason): "the codec '\(codec)' cannot be decoded (\(reason))"
        case .unsupportedSampleRate(_, let rate, let supported):
            "the sample rate \(rate) Hz is not supported (expected \(supported.lowerBound) to \(supported.upperBound) Hz)"
        case .unsupportedChannelCount(_, let channels, let supported):
            "\(channels) channels are not supported (expected \(supported.lowerBound) to \(supported.upperBound))"
        case .unsupportedFrameSize(_, let samples, let maximum):
            "a decoded block of \(samples) samples is not supported (expected at most \(maximum))"
        case .libraryFailure(_, let call): "the audio libraries could not analyse it (\(call) failed)"
        case .decodeFailed(_, let reason): "decoding failed (\(reason))"
        case .truncated(_, let decoded, let declared):
            "the audio stops at \(Self.seconds(decoded)) of the \(Self.seconds(declared)) its header states (cut short?)"
        case .tooShort(_, let seconds, let minimum):
            "only \(Self.seconds(seconds)) of audio; at least \(Self.seconds(minimum)) is needed"
        }
    }

    public var description: String { "\(path): \(reason)" }

    private static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
}
