import Analytics
import Foundation
import Testing

/// The documentation's Swift examples compile and the README's runs.
struct DocSnippetTests {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // …/Tests/DocExampleTests/DocSnippetTests.swift → repo
        return url.path
    }()

    /// Every ```swift block of the doc comments (`/// `), the DocC articles, the README and docs/.
    static func snippets() throws -> [(path: String, lines: [String])] {
        let manager = FileManager.default
        var paths: [String] = []
        if let walker = manager.enumerator(atPath: root + "/Sources") {
            for case let path as String in walker where path.hasSuffix(".swift") || path.hasSuffix(".md") {
                paths.append("Sources/" + path)
            }
        }
        paths.append("README.md")
        paths += ((try? manager.contentsOfDirectory(atPath: root + "/docs")) ?? []).filter { $0.hasSuffix(".md") }
            .map { "docs/" + $0 }
        var found: [(String, [String])] = []
        for path in paths.sorted() {
            var lines = try String(contentsOfFile: root + "/" + path, encoding: .utf8).components(separatedBy: "\n")
            if path.hasSuffix(".swift") {
                lines = lines.map { line in
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed == "///" { return "" }
                    return trimmed.hasPrefix("/// ") ? String(trimmed.dropFirst(4)) : "\u{0}"
                }
            }
            var block: [String]?
            for line in lines {
                if block == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                    block = []
                } else if block != nil, line.trimmingCharacters(in: .whitespaces) == "```" || line == "\u{0}" {
                    found.append((path, block!))
                    block = nil
                } else if block != nil {
                    block!.append(line)
                }
            }
        }
        return found
    }

    /// Lines without indentation, blank lines, imports or repeated spaces.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    @Test func everyExampleIsInTheCompiledExamples() throws {
        let compiled = Self.normalized(
            try String(contentsOfFile: Self.root + "/Tests/DocExampleTests/DocExamples.swift", encoding: .utf8)
                .components(separatedBy: "\n")
        )
        let snippets = try Self.snippets()
        #expect(snippets.count >= 25, "the examples were not found")
        for (path, lines) in snippets {
            let wanted = Self.normalized(lines)
            let isThere =
                !wanted.isEmpty
                && compiled.indices.contains { start in
                    start + wanted.count <= compiled.count && Array(compiled[start..<(start + wanted.count)]) == wanted
                }
            #expect(
                isThere,
                "\(path): this example is not in Tests/DocExampleTests/DocExamples.swift, so nothing compiles it:\n\(lines.joined(separator: "\n"))"
            )
        }
    }

    /// The README's library example, run as printed from the repository's root (where `swift test`
    /// runs), on the bundled sample. It writes `library.sqlite` there and removes it after; when a
    /// file of that name is already there, the test stops rather than touch it.
    @Test func theReadmeExampleRunsAsPrinted() async throws {
        let manager = FileManager.default
        let cwd = manager.currentDirectoryPath
        try #require(
            manager.fileExists(atPath: "samples/tidytuesday-sample.csv"),
            "swift test runs from the repository's root (here: \(cwd))"
        )
        try #require(
            !manager.fileExists(atPath: "library.sqlite"),
            "\(cwd)/library.sqlite exists; the README example would import into it, so it did not run"
        )
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? manager.removeItem(atPath: "library.sqlite" + suffix)
            }
        }
        let outcome = try await readmeExample()
        #expect(outcome.vibes.count == 6)
        #expect(outcome.run.trackCount + outcome.run.excludedTrackCount == 2950)
        #expect(Set(outcome.vibes.map(\.profile.name)).count == 6)
    }
}
