/// Text made safe for a terminal: names from files, tags or Spotify with control characters (ESC,
/// BEL, CR, …) would otherwise drive the terminal, clearing the screen or hiding output.
///
/// Every line the command-line tool prints passes through ``safe(_:keepingStyles:)``, and names
/// that go into styled output through ``singleLine(_:)`` first.
public enum TerminalText {
    /// `text` without C0 control characters (except newline and tab), DEL and C1 control
    /// characters. With `keepingStyles`, SGR sequences (`ESC [ digits ; … m`, colours and bold)
    /// are kept whole; every other escape sequence loses its ESC and so prints as plain text.
    public static func safe(_ text: String, keepingStyles: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if keepingStyles, scalar == "\u{1B}", let end = sgrEnd(in: scalars, from: index) {
                result.append(contentsOf: scalars[index...end])
                index = end + 1
                continue
            }
            if !isControl(scalar) { result.append(scalar) }
            index += 1
        }
        return String(result)
    }

    /// `text` on one line and safe: control characters removed, newlines and tabs turned into spaces.
    public static func singleLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || $0 == "\n" || $0 == "\t" }) else { return text }
        return String(
            String.UnicodeScalarView(
                text.unicodeScalars.compactMap { scalar in
                    scalar == "\n" || scalar == "\t" ? " " : isControl(scalar) ? nil : scalar
                }
            )
        )
    }

    /// Whether a scalar is removed: C0 but newline and tab, DEL, C1.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value)
    }

    /// The index of the `m` ending an SGR sequence that starts with ESC at `start`, if it is one.
    private static func sgrEnd(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        guard start + 2 < scalars.count, scalars[start + 1] == "[" else { return nil }
        var index = start + 2
        while index < scalars.count, index - start < 32 {
            let scalar = scalars[index]
            if scalar == "m" { return index }
            guard ("0"..."9").contains(scalar) || scalar == ";" else { return nil }
            index += 1
        }
        return nil
    }
}
