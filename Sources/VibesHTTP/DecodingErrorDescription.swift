import Foundation

/// A short account of a decoding error for messages: what was wrong and where.
package func describeDecodingError(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return String(describing: error) }
    func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case .dataCorrupted(let context): return "invalid JSON at \(path(context)): \(context.debugDescription)"
    case .keyNotFound(let key, let context): return "missing `\(key.stringValue)` at \(path(context))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
        return "unexpected value at \(path(context)): \(context.debugDescription)"
    @unknown default: return String(describing: error)
    }
}
