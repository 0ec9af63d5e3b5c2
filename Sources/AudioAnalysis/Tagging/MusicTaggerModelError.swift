/// Why the tagger's model could not be loaded: its files are missing, damaged or of another shape.
public enum MusicTaggerModelError: Error, Hashable, Sendable {
    /// `manifest.json` or `weights.bin` in `path` could not be read or decoded.
    case unreadable(path: String, reason: String)
    /// The manifest lists no tensor `name`.
    case missingTensor(String)
    /// The tensor `name` has the shape `found` where the network needs `expected`.
    case wrongShape(name: String, expected: [Int], found: [Int])
}

extension MusicTaggerModelError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "The music tagger's model at \(path) could not be read: \(reason)."
        case .missingTensor(let name): "The music tagger's model has no tensor \(name); convert it again."
        case .wrongShape(let name, let expected, let found):
            "The music tagger's tensor \(name) has the shape \(found) where \(expected) was expected; convert it again."
        }
    }
}
