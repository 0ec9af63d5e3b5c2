import Foundation
import Testing
import VibesTestSupport

/// Every command documented in `docs/json.md` prints JSON of the documented shape: the same keys
/// at the same places, with the same kinds of values.
struct JSONShapeTests {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // …/Tests/VibesAnalyzeTests/JSONShapeTests.swift → repo
        return url.path
    }()

    /// The parts of the document: the library commands, then the Spotify commands.
    enum Part {
        case library, spotify
    }

    /// The documented commands of `part`, in order, with their example objects.
    static func documented(part: Part = .library) throws -> [(arguments: [String], example: Any)] {
        try documented(text: String(contentsOfFile: root + "/docs/json.md", encoding: .utf8), part: part)
    }

    static func documented(text whole: String, part: Part) throws -> [(arguments: [String], example: Any)] {
        let pieces = whole.components(separatedBy: SpotifyJSONShapeTests.marker)
        let text = part == .library ? pieces[0] : (pieces.count > 1 ? pieces[1] : "")
        var sections: [(arguments: [String], example: Any)] = []
        var arguments: [String]?
        var block: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## `vibes-analyze "), line.hasSuffix("`") {
                arguments = line.dropFirst("## `vibes-analyze ".count).dropLast().split(separator: " ").map(String.init)
            } else if line == "```json", arguments != nil {
                block = []
            } else if line == "```", let lines = block, let words = arguments {
                let example = try JSONSerialization.jsonObject(with: Data(lines.joined(separator: "\n").utf8))
                sections.append((words, example))
                (arguments, block) = (nil, nil)
            } else if block != nil {
                block?.append(line)
            }
        }
        return sections
    }

    /// Every path of `value` with the kind of value there; array items share `[]`.
    static func shape(of value: Any, at path: String = "", into paths: inout Set<String>) {
        switch value {
        case let object as [String: Any]:
            paths.insert("\(path): object")
            for (key, item) in object { shape(of: item, at: path + "." + key, into: &paths) }
        case let array as [Any]:
            paths.insert("\(path): array")
            for item in array { shape(of: item, at: path + "[]", into: &paths) }
        case is String:
            paths.insert("\(path): string")
        case is NSNull:
            paths.insert("\(path): null")
        default:
            paths.insert("\(path): number or bool")
        }
    }

    @Test func everyDocumentedCommandPrintsTheDocumentedShape() async throws {
        let sections = try JSONShapeTests.documented()
        #expect(sections.count >= 10)
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            for (arguments, example) in sections {
                // Paths in the document are relative to the repository.
                let words = arguments.map { word in
                    FileManager.default.fileExists(atPath: JSONShapeTests.root + "/" + word)
                        ? JSONShapeTests.root + "/" + word : word
                }
                let result = try await CommandLineTool.run(words + ["--db", db])
                try #require(result.status == 0, "\(arguments): \(result.stderr)")
                let actual = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
                var expected = Set<String>()
                var printed = Set<String>()
                JSONShapeTests.shape(of: example, into: &expected)
                JSONShapeTests.shape(of: actual, into: &printed)
                #expect(printed.subtracting(expected).sorted() == [], "\(arguments): printed but not documented")
                #expect(expected.subtracting(printed).sorted() == [], "\(arguments): documented but not printed")
                #expect(printed.contains(".schema_version: number or bool"), "\(arguments)")
                // No float32 noise: at most 6 significant digits.
                // Significant digits: those of the mantissa without leading zeros, or trailing zeros
                // after the point ("200708.0" has 6).
                let long = result.stdout.split(whereSeparator: { " ,:[\n".contains($0) }).filter { token in
                    var mantissa = Substring(token.split(whereSeparator: { $0 == "e" || $0 == "E" }).first ?? token)
                    if mantissa.contains(".") {
                        while mantissa.last == "0" { mantissa = mantissa.dropLast() }
                    }
                    return token.contains(".") && Double(token) != nil
                        && mantissa.filter(\.isNumber).drop { $0 == "0" }.count > 6
                }
                #expect(long.isEmpty, "\(arguments): \(long.prefix(3))")
            }
        }
    }

    @Test func aFailureUnderJSONIsAnErrorObjectOnStandardOutput() async throws {
        try await withTemporaryDirectory { folder in
            let missing = try await CommandLineTool.run(["library", "--db", folder + "/none.sqlite", "--json"])
            #expect(missing.status == 1)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(missing.stdout.utf8)) as? [String: Any]
            )
            let error = try #require(object["error"] as? [String: Any])
            #expect(error["code"] as? Int == 1)
            #expect((error["message"] as? String)?.contains("none.sqlite") == true)
            #expect(missing.stderr.contains("none.sqlite"))

            let usage = try await CommandLineTool.run(["recommend", "--mood", "chil", "--json"])
            #expect(usage.status == 64)
            let usageObject = try #require(
                try JSONSerialization.jsonObject(with: Data(usage.stdout.utf8)) as? [String: Any]
            )
            #expect((usageObject["error"] as? [String: Any])?["code"] as? Int == 64)
        }
    }
}
