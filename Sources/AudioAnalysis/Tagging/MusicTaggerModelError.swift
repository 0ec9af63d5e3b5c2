/// Why the tagger's model could not be loaded: its files are missing, damaged or of another shape.
public enum MusicTaggerModelError: Error, Hashable, Sendable {
    /// `manifest.json` or `weights.bin` in `path` could not be read or decoded.
    case unreadable(path: String, reason: String)
    /// The manifest lists no tensor `name`.
    case missingTensor(String)
    /// The tensor `name` has the shape `found` where the network needs `expected`.
    case wrongShape(name: String, expected: [Int], found: [Int])
}
