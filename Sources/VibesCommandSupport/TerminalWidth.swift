import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How wide the tables on standard output may be.
///
/// On a terminal, tables fit its width: the window size from the terminal itself, else
/// `$COLUMNS`, else 80 columns. Piped or redirected, nothing is shortened, so a script or a file
/// gets every character.
package enum TerminalWidth {
    /// The columns of the terminal standard output writes to, or `nil` when it is not a terminal.
    package static var standardOutput: Int? {
        guard isatty(STDOUT_FILENO) != 0 else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        return 80
    }

    /// The columns of the terminal diagnostics and progress (stderr) go to, or `nil` when it is
    /// not a terminal.
    package static var standardError: Int? {
        guard isatty(STDERR_FILENO) != 0 else { return nil }
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        return 80
    }

    /// The lines of `text` wrapped at spaces to `width` columns (a word longer than the width
    /// keeps its own line); the text as it is without a width.
    package static func wrap(_ text: String, to width: Int?, indent: String = "") -> [String] {
        guard let width, text.count > width else { return [text] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = indent + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

extension TerminalWidth {
    /// `text` made to fit `width` columns, line by line: prose wraps at spaces under its own
    /// indentation; a table row or a chart line (two spaces in a row, or box-drawing characters)
    /// is cut with "…". Colour sequences take no columns and are kept whole. Unchanged without
    /// a width.
    package static func fit(_ text: String, to width: Int?) -> String {
        guard let width else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line -> [String] in
            let line = String(line)
            guard visibleCount(line) > width else { return [line] }
            let indent = String(line.prefix { $0 == " " })
            let body = line.dropFirst(indent.count)
            let isTabular = body.contains("  ") || body.contains { "│└┌─┼┤├".contains($0) }
            if isTabular { return [cut(line, to: width)] }
            var lines: [String] = []
            var current = ""
            for word in body.split(separator: " ") {
                let candidate = current.isEmpty ? indent + word : current + " " + word
                if !current.isEmpty && visibleCount(candidate) > width {
                    lines.append(current)
                    current = indent + "  " + word
                } else {
                    current = candidate
                }
            }
            if !current.isEmpty { lines.append(current) }
            return lines
        }.joined(separator: "\n")
    }

    /// The columns `text` takes: its characters, less its colour sequences (`ESC [ … m`).
    static func visibleCount(_ text: String) -> Int {
        var count = 0
        var inSequence = false
        for character in text {
            if inSequence {
                if character == "m" { inSequence = false }
            } else if character == "\u{1B}" {
                inSequence = true
            } else {
                count += 1
            }
        }
        return count
    }

    /// `text` cut to `width` visible columns with "…", keeping colour sequences whole and
    /// resetting the colour after the cut.
    static func cut(_ text: String, to width: Int) -> String {
        var result = ""
        var count = 0
        var inSequence = false
        var hasSequences = false
        for character in text {
            if inSequence {
                result.append(character)
                if character == "m" { inSequence = false }
            } else if character == "\u{1B}" {
                result.append(character)
                inSequence = true
                hasSequences = true
            } else {
                if count == width - 1 { break }
                result.append(character)
                count += 1
            }
        }
        return result + "…" + (hasSequences ? "\u{1B}[0m" : "")
    }
}

extension String {
    /// The text shortened with "…" to at most `width` characters; unchanged without a width.
    package func fitted(to width: Int?) -> String {
        guard let width, count > width else { return self }
        return width <= 1 ? String(prefix(width)) : String(prefix(width - 1)) + "…"
    }
}

/// `--wide`, for the commands that print tables.
package struct TableOptions: ParsableArguments {
    package init() {}

    @Flag(
        name: .long,
        help: "On a terminal, print every column (the reasons a track was chosen, every feature) even past its width."
    )
    package var wide = false

    /// The width tables fit: the terminal's, unless `--wide` is given or output is not a terminal.
    package var width: Int? { wide ? nil : TerminalWidth.standardOutput }
}
