import Foundation

/// Removes secrets from text before it reaches an error message, a log line or the terminal.
///
/// Spotify's access and refresh tokens, authorization codes, PKCE verifiers and client secrets
/// travel in JSON bodies, form bodies, query strings and `Authorization` headers. Every one of
/// those shapes is rewritten to `<redacted>`, the way GRDB hides statement arguments.
public enum Redaction {
    /// The names whose values are secret wherever they appear.
    static let secretNames = [
        "access_token", "refresh_token", "code", "code_verifier", "client_secret", "id_token", "token",
    ]

    /// Returns `text` with every token, code, verifier and secret replaced by `<redacted>`.
    ///
    /// Handles `"name": "value"` (JSON), `name=value` (forms and query strings) and
    /// `Bearer …`/`Basic …` credentials.
    public static func redact(_ text: some StringProtocol) -> String {
        var result = String(text)
        for name in secretNames {
            result = redactJSONValue(named: name, in: result)
            result = redactFormValue(named: name, in: result)
        }
        for scheme in ["Bearer ", "Basic "] {
            result = redactCredential(after: scheme, in: result)
        }
        return result
    }

    /// `"name" : "value"` → `"name" : "<redacted>"`.
    private static func redactJSONValue(named name: String, in text: String) -> String {
        let pattern = "\"\(name)\""
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: pattern) {
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            // Skip spaces and the colon, then replace a quoted string value.
            var index = rest.startIndex
            while index < rest.endIndex, rest[index] == " " || rest[index] == ":" || rest[index] == "\t" {
                index = rest.index(after: index)
            }
            guard index < rest.endIndex, rest[index] == "\"" else { continue }
            var end = rest.index(after: index)
            while end < rest.endIndex, rest[end] != "\"" {
                if rest[end] == "\\" { end = rest.index(after: end) }
                if end < rest.endIndex { end = rest.index(after: end) }
            }
            result += rest[..<index] + "\"<redacted>\""
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
        }
        return result + rest
    }

    /// `name=value` → `name=<redacted>`, where `name` starts the text or follows `?`, `&`, a space
    /// or a line break.
    private static func redactFormValue(named name: String, in text: String) -> String {
        let pattern = name + "="
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: pattern) {
            let isAtBoundary =
                range.lowerBound == rest.startIndex && result.isEmpty
                || (range.lowerBound > rest.startIndex
                    ? "?& \n\"',;".contains(rest[rest.index(before: range.lowerBound)])
                    : "?& \n\"',;".contains(result.last ?? " "))
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            guard isAtBoundary else { continue }
            let end = rest.firstIndex(where: { "& \n\"',;#".contains($0) }) ?? rest.endIndex
            if end > rest.startIndex { result += "<redacted>" }
            rest = rest[end...]
        }
        return result + rest
    }

    /// `Bearer abc.def` → `Bearer <redacted>`.
    private static func redactCredential(after scheme: String, in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: scheme, options: .caseInsensitive) {
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let end = rest.firstIndex(where: { " \n\"',;".contains($0) }) ?? rest.endIndex
            if end > rest.startIndex { result += "<redacted>" }
            rest = rest[end...]
        }
        return result + rest
    }
}

/// A raw body prepared for an error message: redacted and cut to 2,000 characters.
package func redactedBody(_ data: Data) -> String {
    let text = Redaction.redact(String(decoding: data.prefix(4000), as: UTF8.self))
    return text.count > 2000 ? String(text.prefix(2000)) + "…" : text
}
