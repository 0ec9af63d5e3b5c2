import Foundation

/// Why a file could not be analysed. Each case names the file and carries the facts; what to do
/// about it is for the caller to say.
public enum AudioAnalysisError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file has no bytes.
    case emptyFile(path: String)
    /// FFmpeg could not open or parse the file (not audio, or a damaged header).
    case unreadable(path: String, reason: String)
    /// The file holds no audio stream.
    case noAudioStream(path: String)
    /// The file's codec cannot be decoded by this build of FFmpeg.
    case unsupported(path: String, codec: String, reason: String)
    /// Decoding started but produced no audio.
    case decodeFailed(path: String, reason: String)
    /// The stream ends long before the duration its container states: a download cut short.
    case truncated(path: String, decodedSeconds: Double, declaredSeconds: Double)
    /// Too little audio to measure anything.
    case tooShort(path: String, seconds: Double, minimum: Double)

    /// The file the error is about.
    public var path: String {
        switch self {
        case .emptyFile(let path), .unreadable(let path, _), .noAudioStream(let path),
            .unsupported(let path, _, _), .decodeFailed(let path, _), .truncated(let path, _, _),
            .tooShort(let path, _, _):
            path
        }
    }

    /// The reason alone, without the path: what a per-file report prints beside the path.
    public var reason: String {
        switch self {
        case .emptyFile: "the file is empty (0 bytes)"
        case .unreadable(_, let reason): "not a readable audio file (\(reason))"
        case .noAudioStream: "the file holds no audio stream"
        case .unsupported(_, let codec, let reason): "the codec '\(codec)' cannot be decoded (\(reason))"
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
