import ArgumentParser
import Testing

@testable import vibes_analyze

/// `report`'s usage errors; the report itself is tested through the built tool (`ReportCommandTests`).
struct ReportCommandParsingTests {
    @Test(arguments: [
        ["report", "--utc", "--time-zone", "UTC"], ["report", "--time-zone", "Mars/Olympus"],
        ["report", "--format", "pdf"],
        ["report", "--json", "--format", "html"],
    ])
    func badOptionsExitWith64(arguments: [String]) {
        do {
            _ = try VibesAnalyze.parseAsRoot(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure, "\(arguments)")
        }
    }
}
