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
