/// A release date as Spotify reports it: a year, a month, or a day.
///
/// Spotify's `release_date_precision` is `year`, `month` or `day`, and datasets carry all three
/// (`2019`, `2019-06`, `2019-06-14`). The precision is kept so a year is never shown as 1 January.
public struct ReleaseDate: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// How precisely the date is known.
    public enum Precision: String, Codable, Sendable, CaseIterable {
        case year, month, day
    }

    public let year: Int
    public let month: Int?
    public let day: Int?

    public var precision: Precision {
        day != nil ? .day : month != nil ? .month : .year
    }

    public init(year: Int, month: Int? = nil, day: Int? = nil) {
        precondition(day == nil || month != nil, "A release date with a day must have a month.")
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY`, `YYYY-MM` or `YYYY-MM-DD`; returns `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        // Fast path for the exact forms; anything else goes through the general parser below.
        if bytes.count == 10, bytes[4] == 0x2D, bytes[7] == 0x2D, let year = number(0..<4),
            let month = number(5..<7), let day = number(8..<10), (1...12).contains(month), (1...31).contains(day)
        {
            self.init(year: year, month: month, day: day)
            return
        }
        if bytes.count == 4, let year = number(0..<4) {
            self.init(year: year)
            return
        }
        let parts = text.trimmingWhitespace().split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts[0].count == 4, let year = Int(parts[0]) else { return nil }
        var month: Int?
        var day: Int?
        if parts.count >= 2 {
            guard parts[1].count == 2, let value = Int(parts[1]), (1...12).contains(value) else { return nil }
            month = value
        }
        if parts.count == 3 {
            guard parts[2].count == 2, let value = Int(parts[2]), (1...31).contains(value) else { return nil }
            day = value
        }
        self.init(year: year, month: month, day: day)
    }

    /// The date in the form it was given: `2019`, `2019-06` or `2019-06-14`.
    public var description: String {
        var text = String(year)
        if let month { text += "-" + (month < 10 ? "0" : "") + String(month) }
        if let day { text += "-" + (day < 10 ? "0" : "") + String(day) }
        return text
    }

    public static func < (lhs: ReleaseDate, rhs: ReleaseDate) -> Bool {
        (lhs.year, lhs.month ?? 0, lhs.day ?? 0) < (rhs.year, rhs.month ?? 0, rhs.day ?? 0)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = ReleaseDate(text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Expected YYYY, YYYY-MM or YYYY-MM-DD, got \"\(text)\"."
            )
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
