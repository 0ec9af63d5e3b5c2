import Features
import Foundation

/// Imports the JSON files people download from Spotify ("Download your data") and JSON saved
/// from the Spotify Web API.
///
/// Which format a file is comes from its shape (`JSONImporter+Detection.swift`); each format is
/// read in its own file (`JSONImporter+StreamingHistory.swift` and its neighbours), and this one
/// holds what they share: decoding, the checks of invalid values and the wording of errors.
struct JSONImporter {
    let format: ImportFormat
    let context: ImportContext
    let data: Data

    /// Checks the syntax, decodes the file and imports it.
    ///
    /// `JSONDecoder` refuses a number that does not fit an `Int` field (1e30, 9223372036854775808,
    /// 1.5) with no place at all; such a failure is followed by a search for the number, which is
    /// refused with its field and range, or with `--skip-invalid` kept as missing.
    func run() throws {
        do {
            try JSONSyntax.check(data)
        } catch {
            throw context.error(line: error.line, column: error.column, error.message)
        }
        do {
            try decodeAndImport()
        } catch let error as DecodingError {
            guard case .dataCorrupted(let corruption) = error, corruption.codingPath.isEmpty else {
                throw describe(error)
            }
            guard let repaired = try withUnreadableWholeNumbersRemoved() else {
                throw context.error(
                    "a number does not fit where \(format.summary) files have one; expected whole numbers in whole-number fields and numbers within ±1.8e308"
                )
            }
            do {
                try JSONImporter(format: format, context: context, data: repaired).decodeAndImport()
            } catch let error as DecodingError {
                throw describe(error)
            }
        }
    }

    private func decodeAndImport() throws {
        let decoder = JSONDecoder()
        switch format {
        case .streamingHistory: try importStreamingHistory(decoder.decode([AccountPlay].self, from: data))
        case .extendedHistory: try importExtendedHistory(decoder.decode([ExtendedPlay].self, from: data))
        case .yourLibrary: try importYourLibrary(decoder.decode(YourLibrary.self, from: data))
        case .accountPlaylists: try importAccountPlaylists(decoder.decode(AccountPlaylists.self, from: data))
        case .spotifyJSON: try importSpotifyJSON(decoder)
        case .reccoBeatsJSON:
            try importReccoBeats(decoder.decode(ReccoBeatsContent<ReccoBeatsAudioFeaturesObject>.self, from: data))
        case .featuresCSV, .exportify: preconditionFailure("CSV formats are not JSON")
        }
    }

    // MARK: - Invalid values

    /// A JSON number that should be whole milliseconds of a play, read whatever it is, so that a
    /// bad one (−5, 1.5, 1e30, 9223372036854775808) is refused with its field rather than failing
    /// the decoding of the whole file.
    struct Milliseconds: Decodable, Hashable {
        /// The number, when it is whole and within `Track.validDurationMS`.
        var value: Int?
        /// The number as read, for messages.
        var found: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let whole = try? container.decode(Int.self) {
                found = String(whole)
                value = Track.validDurationMS.contains(whole) ? whole : nil
            } else {
                let number = try container.decode(Double.self)
                found = JSONImporter.text(number)
                value = Int(exactly: number).flatMap { Track.validDurationMS.contains($0) ? $0 : nil }
            }
        }

        /// What was expected and what was found, for an error naming the field.
        var problem: String {
            JSONImporter.expectedMilliseconds + ", found \(found)"
        }
    }

    static let expectedMilliseconds =
        "expected a whole number of milliseconds from \(Track.validDurationMS.lowerBound) to \(Track.validDurationMS.upperBound) (100 hours)"

    /// `features` if every value is valid (see `AudioFeature.isValid(_:)`); otherwise an error
    /// naming the first invalid one and its valid range, or with `--skip-invalid` the features
    /// without the invalid values, which are counted as kept missing.
    ///
    /// - Parameter field: The path of the object holding the features, ending in `.`, or empty.
    func validFeatures(_ features: AudioFeatures, field: String) throws -> AudioFeatures {
        guard let first = features.invalidFeatures.first else { return features }
        guard context.options.skipInvalid else {
            throw context.error(
                field: field + first.rawValue,
                "expected \(first.validRangeDescription), found \(JSONImporter.text(features[first] ?? .nan))"
            )
        }
        let (valid, dropped) = features.removingInvalidValues()
        for feature in dropped { context.invalidValueKeptAsMissing(field: feature.rawValue) }
        return valid
    }

    /// `durationMS` if it is missing or within `Track.validDurationMS`; otherwise an error naming
    /// `field`, or with `--skip-invalid` `nil`, counted as kept missing.
    func validDuration(_ durationMS: Int?, field: String) throws -> Int? {
        guard let durationMS, !Track.validDurationMS.contains(durationMS) else { return durationMS }
        guard context.options.skipInvalid else {
            throw context.error(field: field, JSONImporter.expectedMilliseconds + ", found \(durationMS)")
        }
        context.invalidValueKeptAsMissing(field: "duration_ms")
        return nil
    }

    /// The keys whose values the decoded types read as `Int`, and what each expects.
    private static let wholeNumberKeys: [String: String] = {
        var keys = [
            "duration_ms": expectedMilliseconds,
            "popularity": "expected a whole number from 0 to 100",
            "limit": "expected a whole number",
            "offset": "expected a whole number",
            "total": "expected a whole number",
        ]
        for feature in AudioFeature.all where feature.isDiscrete {
            keys[feature.rawValue] = "expected \(feature.validRangeDescription)"
        }
        return keys
    }()

    /// The file with every number that `JSONDecoder` cannot read as an `Int` removed (made
    /// `null`) where an `Int` is read, each counted as kept missing; `nil` when there is none.
    ///
    /// - Throws: Without `--skip-invalid`, an ``ImportError`` naming the first such number's field
    ///   and what was expected there.
    private func withUnreadableWholeNumbersRemoved() throws -> Data? {
        guard let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        var found: [(field: String, key: String, value: String)] = []
        let repaired = JSONImporter.removingUnreadableWholeNumbers(from: tree, path: "", found: &found)
        guard let first = found.first else { return nil }
        guard context.options.skipInvalid else {
            throw context.error(
                field: first.field,
                (JSONImporter.wholeNumberKeys[first.key] ?? "expected a whole number") + ", found \(first.value)"
            )
        }
        for problem in found { context.invalidValueKeptAsMissing(field: problem.key) }
        return try? JSONSerialization.data(withJSONObject: repaired, options: [.fragmentsAllowed])
    }

    private static func removingUnreadableWholeNumbers(
        from value: Any,
        path: String,
        found: inout [(field: String, key: String, value: String)]
    ) -> Any {
        if let array = value as? [Any] {
            return array.enumerated().map { index, element in
                removingUnreadableWholeNumbers(from: element, path: path + "[\(index)]", found: &found)
            }
        }
        guard var object = value as? [String: Any] else { return value }
        for key in object.keys.sorted() {
            let field = path.isEmpty ? key : path + "." + key
            if wholeNumberKeys[key] != nil, let number = object[key] as? NSNumber, !(object[key] is Bool),
                !isReadableAsInt(number)
            {
                found.append((field, key, text(number.doubleValue)))
                object[key] = NSNull()
            } else if let child = object[key] {
                object[key] = removingUnreadableWholeNumbers(from: child, path: field, found: &found)
            }
        }
        return object
    }

    /// Whether `JSONDecoder` reads the number `JSONSerialization` made `number` as an `Int`:
    /// 64-bit integers, and whole floating-point values below 2⁵³ (`7.0`, `1e3`). A larger
    /// floating-point value may have been written as an integer just past `Int`'s range.
    private static func isReadableAsInt(_ number: NSNumber) -> Bool {
        switch String(cString: number.objCType) {
        case "c", "C", "s", "S", "i", "I", "l", "L", "q": return true
        case "Q": return number.uint64Value <= UInt64(Int.max)
        default:
            let value = number.doubleValue
            return value == value.rounded() && abs(value) < 0x1p53
        }
    }

    /// A number for a message: whole numbers without `.0`, others as Swift prints them (`1e+30`).
    static func text(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : "\(number)"
    }

    // MARK: - Errors

    func describe(_ error: DecodingError) -> ImportError {
        func path(_ codingPath: [any CodingKey]) -> String? {
            codingPath.isEmpty
                ? nil
                : codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".")
                    .description
        }
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return self.context.error(
                field: path(context.codingPath),
                "expected \(JSONImporter.describe(type)) (\(format.summary))"
            )
        case .keyNotFound(let key, let context):
            return self.context.error(
                field: path(context.codingPath + [key]),
                "expected this key, which \(format.summary) files have"
            )
        case .dataCorrupted(let context):
            // Foundation's text ("The given data was not valid JSON.") says neither where nor what.
            return self.context.error(
                field: path(context.codingPath),
                "expected a value that \(format.summary) files have here"
            )
        @unknown default:
            return context.error("cannot read the file as \(format.summary)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array ([…])"
        case is [String: Any].Type: "an object ({…})"
        default: "\(type)"
        }
    }
}
