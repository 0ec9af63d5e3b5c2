/// What an importer needs while it reads one file: where it is, and what to do with bad rows.
final class ImportContext {
    let file: String
    let options: ImportOptions
    let writer: LibraryWriter
    let totalBytes: Int
    private(set) var rowsRead = 0
    private(set) var rowsImported = 0
    private(set) var rejectedCount = 0
    private(set) var rejections: [ImportError] = []
    var notes: [String] = []
    /// Values outside their valid range kept as missing under `--skip-invalid`, per field.
    private(set) var invalidKeptAsMissing: [String: Int] = [:]
    private var lastProgress = 0

    init(file: String, options: ImportOptions, writer: LibraryWriter, totalBytes: Int) {
        self.file = file
        self.options = options
        self.writer = writer
        self.totalBytes = totalBytes
    }

    /// Runs the import of one row: counts it, and either rejects it (with `--skip-invalid`) or
    /// rethrows its error, which rolls back the whole file.
    func row(bytesRead: Int, _ body: () throws -> Void) throws {
        rowsRead += 1
        do {
            try body()
            rowsImported += 1
        } catch let error as ImportError {
            guard options.skipInvalid else { throw error }
            rejectedCount += 1
            rejections.append(error)
        }
        if rowsRead & 0x3FFF == 0, let progress = options.progress, bytesRead - lastProgress > 0 {
            lastProgress = bytesRead
            progress(bytesRead, totalBytes)
        }
    }

    /// Counts a value outside its valid range that was kept as missing (`--skip-invalid`).
    func invalidValueKeptAsMissing(field: String, count: Int = 1) {
        invalidKeptAsMissing[field, default: 0] += count
    }

    /// An error at a place in this file.
    func error(line: Int? = nil, column: Int? = nil, field: String? = nil, _ message: String) -> ImportError {
        ImportError(file: file, line: line, column: column, field: field, message: message)
    }
}
