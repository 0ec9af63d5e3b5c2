import VibesCommandSupport

/// Every `print` of this tool goes through the terminal-safe console (``Console/write(_:terminator:keepingStyles:)``),
/// so a name holding ESC, BEL or CR cannot drive the terminal.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Console.write(items.map { "\($0)" }.joined(separator: separator), terminator: terminator)
}
