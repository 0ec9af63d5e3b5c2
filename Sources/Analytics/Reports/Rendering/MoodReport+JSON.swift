import Foundation

extension MoodReport {
    /// The report as pretty-printed JSON with sorted snake-case keys (schema version
    /// ``currentSchemaVersion``, described in the Reports article).
    public func renderedJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// Reads a report written by ``renderedJSON()``.
    ///
    /// - Throws: `DecodingError` when the text is not a report of this schema.
    public init(json: Data) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in MoodReport.PropertyKey(snakeCase: path.last!.stringValue) }
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        self = try decoder.decode(MoodReport.self, from: json)
    }
}

extension MoodReport {
    /// A JSON key mapped back to its Swift property name: `skipped_ms` → `skippedMS`.
    ///
    /// `convertFromSnakeCase` alone would give `skippedMs` and `runId`, which miss the properties
    /// whose acronyms are written in one case (`skippedMS`, `runID`).
    struct PropertyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }

        init(snakeCase key: String) {
            let words = key.split(separator: "_")
            var name = words.first.map(String.init) ?? key
            for word in words.dropFirst() {
                name +=
                    word == "id" || word == "ms" ? word.uppercased() : word.prefix(1).uppercased() + word.dropFirst()
            }
            stringValue = name
        }

        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
