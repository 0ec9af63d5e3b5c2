/// A problem with an imported file, pointing at the place and saying what was expected.
///
/// Described as `file:line:column: field "energy": expected a number, found "high"`, the form
/// editors and terminals turn into links.
public struct ImportError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The file's path as the user gave it.
    public var file: String
    /// The 1-based line, when the problem has one.
    public var line: Int?
    /// The 1-based column in characters, when the problem has one.
    public var column: Int?
    /// The field (CSV column or JSON key) concerned, when there is one.
    public var field: String?
    /// What was wrong and what was expected.
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, field: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.message = message
    }

    /// `text` in quotes for a message, shortened to 60 characters with "…" so that one huge field
    /// cannot make a huge message.
    static func quoted(_ text: String) -> String {
        "\"" + (text.count > 60 ? String(text.prefix(59)) + "…" : text) + "\""
    }

    public var description: String {
        var location = file
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        return location + ": " + (field.map { "field \(ImportError.quoted($0)): " } ?? "") + message
    }
}
