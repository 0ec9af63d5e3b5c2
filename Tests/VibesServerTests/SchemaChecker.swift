import Foundation

/// A JSON value, decoded strictly: `true` is not a number and `1.5` not an integer.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The JSON Schema type names the value has (an integer is a number too).
    var typeNames: Set<String> {
        switch self {
        case .null: ["null"]
        case .bool: ["boolean"]
        case .integer: ["integer", "number"]
        case .number(let value): value.rounded() == value ? ["integer", "number"] : ["number"]
        case .string: ["string"]
        case .array: ["array"]
        case .object: ["object"]
        }
    }

    var numberValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

/// Checks a JSON value against a schema of an OpenAPI 3.1 document: the keywords the document
/// uses (`$ref` into `#/components/schemas`, `allOf`, `oneOf`, `type` with type lists, `required`,
/// `properties`, `additionalProperties`, `items`, `enum`, `const`, `minimum`, `maximum`);
/// annotations (`description`, `format`, `default`) are ignored, and a keyword it does not know
/// fails the check, so that the document cannot use one that goes unchecked.
///
/// Hand-written rather than a dependency: the package takes its dependencies from a local mirror
/// that has no JSON Schema validator for Swift, and this subset is all the document needs.
/// (`python3 -m openapi_spec_validator docs/openapi.json` checks the document itself.)
struct SchemaChecker {
    let document: JSONValue

    static let annotations: Set<String> = ["description", "format", "default", "example", "title"]

    /// The problems of `value` against `schema`, each with its JSON path; empty when it conforms.
    func problems(of value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        guard case .object(let keywords) = schema else { return ["\(path): the schema is not an object"] }
        var problems: [String] = []
        for (keyword, argument) in keywords.sorted(by: { $0.key < $1.key }) {
            switch keyword {
            case "$ref":
                guard let target = resolve(argument.stringValue ?? "") else {
                    problems.append("\(path): cannot resolve \(argument)")
                    continue
                }
                problems += self.problems(of: value, against: target, at: path)
            case "allOf":
                guard case .array(let parts) = argument else { continue }
                for part in parts { problems += self.problems(of: value, against: part, at: path) }
            case "oneOf":
                guard case .array(let parts) = argument else { continue }
                let matching = parts.filter { self.problems(of: value, against: $0, at: path).isEmpty }
                if matching.count != 1 { problems.append("\(path): matches \(matching.count) of oneOf's schemas") }
            case "type":
                let allowed: Set<String> =
                    switch argument {
                    case .string(let name): [name]
                    case .array(let names): Set(names.compactMap(\.stringValue))
                    default: []
                    }
                if allowed.isDisjoint(with: value.typeNames) {
                    problems.append("\(path): \(value) is not of type \(allowed.sorted())")
                }
            case "required":
                guard case .object(let members) = value, case .array(let names) = argument else { continue }
                for name in names.compactMap(\.stringValue) where members[name] == nil {
                    problems.append("\(path): lacks the required key \"\(name)\"")
                }
            case "properties":
                guard case .object(let members) = value, case .object(let properties) = argument else { continue }
                for (name, member) in members {
                    guard let property = properties[name] else { continue }
                    problems += self.problems(of: member, against: property, at: "\(path).\(name)")
                }
            case "additionalProperties":
                guard case .object(let members) = value else { continue }
                let declared = keywords["properties"].flatMap { if case .object(let p) = $0 { p } else { nil } } ?? [:]
                for (name, member) in members where declared[name] == nil {
                    problems += self.problems(of: member, against: argument, at: "\(path).\(name)")
                }
            case "items":
                guard case .array(let elements) = value else { continue }
                for (index, element) in elements.enumerated() {
                    problems += self.problems(of: element, against: argument, at: "\(path)[\(index)]")
                }
            case "enum":
                guard case .array(let options) = argument else { continue }
                if !options.contains(value) { problems.append("\(path): \(value) is not one of \(options)") }
            case "const":
                if value != argument { problems.append("\(path): \(value) is not \(argument)") }
            case "minimum":
                if let number = value.numberValue, let bound = argument.numberValue, number < bound {
                    problems.append("\(path): \(number) is below \(bound)")
                }
            case "maximum":
                if let number = value.numberValue, let bound = argument.numberValue, number > bound {
                    problems.append("\(path): \(number) is above \(bound)")
                }
            case let other where Self.annotations.contains(other):
                continue
            default:
                problems.append("\(path): the checker does not know the keyword \"\(keyword)\"")
            }
        }
        return problems
    }

    /// The value a local JSON pointer (`#/components/schemas/Name`) names.
    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: JSONValue? = document
        for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        return node
    }
}
