import Foundation
import GRDB

extension LibraryStore {
    /// Imports every file vibes-analyze knows in a Spotify data export (a zip or a folder), each
    /// as ``importFile(at:options:)`` would, and lists what it skipped.
    ///
    /// Each imported file's summary and import run carry the name `ARCHIVE/PATH-INSIDE`, never the
    /// temporary copy's path. The temporary copies are removed before this returns.
    ///
    /// - Throws: ``ImportError`` when the archive cannot be read, is refused whole, or holds
    ///   nothing to import.
    public func importSpotifyExport(
        at path: String,
        options: ImportOptions = ImportOptions(),
        limits: SpotifyExportArchive.Limits = SpotifyExportArchive.Limits()
    ) throws -> SpotifyExportImport {
        let export = try SpotifyExportArchive.open(path, limits: limits)
        defer { export.remove() }
        var result = SpotifyExportImport(source: path, skipped: export.skipped)
        var memberOptions = options
        memberOptions.progress = nil
        for member in export.members {
            let shown = (path as NSString).lastPathComponent + "/" + member.name
            do {
                var summary = try importFile(at: member.path, options: memberOptions)
                summary.path = shown
                if summary.status == .imported, let runID = summary.runID {
                    try write { db in
                        try db.execute(sql: "UPDATE import_runs SET path = ? WHERE id = ?", arguments: [shown, runID])
                    }
                }
                result.files.append(summary)
            } catch var error as ImportError {
                error.file = shown
                result.failures.append((member.name, error.description))
            } catch {
                result.failures.append((member.name, "\(shown): \(error)"))
            }
        }
        return result
    }
}
