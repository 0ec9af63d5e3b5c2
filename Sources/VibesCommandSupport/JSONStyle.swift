import Foundation

/// The one JSON style of every `--json` output: snake_case keys, sorted; numbers with a fraction
/// rounded to 6 significant digits (no float32 noise such as `0.23800000548362732`); a top-level
/// object carrying `schema_version`; and failures as `{"error": {"code": …, "message": …}}`.
/// The shapes are documented in `docs/json.md`.
package enum JSONStyle {
    /// The version of the documented shapes; it changes when a key is renamed or removed.
    package static let schemaVersion = 2

    /// The significant digits kept of a number with a fraction.
    package static let significantDigits = 6

    /// `value` as pretty-printed JSON in the house style.
    package static func text(of value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let plain = try encoder.encode(value)
        var data = plain
        if plain.first == UInt8(ascii: "{"),
            let object = try? JSONSerialization.jsonObject(with: plain) as? [String: Any],
            object["schema_version"] == nil
        {
            data = try encoder.encode(Versioned(value: value))
        }
        return roundingNumbers(in: String(decoding: data, as: UTF8.self))
    }

    /// The failure object printed on standard output under `--json`.
    package static func errorText(code: Int32, message: String) -> String {
        struct Failure: Encodable {
            struct Detail: Encodable {
                var code: Int32
                var message: String
            }
            var error: Detail
        }
        return (try? text(of: Failure(error: .init(code: code, message: message))))
            ?? #"{"error": {"code": \#(code)}}"#
    }

    /// The JSON text with every number that has a fraction or an exponent written with at most
    /// ``significantDigits`` significant digits; a number that becomes whole keeps `.0`, so it
    /// still reads as a float. Strings and whole numbers are left as they are.
    package static func roundingNumbers(in text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = scalars.next()
        var inString = false
        var escaped = false
        var number = ""
        func flushNumber() {
            guard !number.isEmpty else { return }
            if number.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let value = Double(number),
                value.isFinite
            {
                var rounded = String(format: "%.\(significantDigits)g", value)
                if !rounded.contains(where: { $0 == "." || $0 == "e" || $0 == "n" || $0 == "i" }) { rounded += ".0" }
                output += rounded
            } else {
                output += number
            }
            number = ""
        }
        while let scalar = pending {
            pending = scalars.next()
            if inString {
                output.unicodeScalars.append(scalar)
                if escaped {
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    inString = false
                }
                continue
            }
            switch scalar {
            case "0"..."9", "-", "+", ".", "e", "E":
                number.unicodeScalars.append(scalar)
            default:
                flushNumber()
                if scalar == "\"" { inString = true }
                output.unicodeScalars.append(scalar)
            }
        }
        flushNumber()
        return output
    }

    /// A value's keyed container with `schema_version` added.
    private struct Versioned<Value: Encodable>: Encodable {
        var value: Value

        enum Key: String, CodingKey {
            case schemaVersion = "schema_version"
        }

        func encode(to encoder: any Encoder) throws {
            try value.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(JSONStyle.schemaVersion, forKey: .schemaVersion)
        }
    }
}
