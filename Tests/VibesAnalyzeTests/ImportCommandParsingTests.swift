import ArgumentParser
import Testing

@testable import vibes_analyze

/// `import`'s usage errors; what it imports is tested through the built tool (`ImportCommandTests`).
struct ImportCommandParsingTests {
    @Test func usageErrorsExitWith64() async throws {
        for arguments in [
            ["import"], ["import", "--quiet", "--verbose", "a.csv"], ["import", "--format", "xml", "a.csv"],
        ] {
            do {
                _ = try VibesAnalyze.parseAsRoot(arguments)
                Issue.record("\(arguments) parsed")
            } catch {
                #expect(VibesAnalyze.exitCode(for: error) == .validationFailure, "\(arguments)")
            }
        }
        let message = VibesAnalyze.message(for: ValidationError("x"))
        #expect(!message.isEmpty)
    }
}
