import Features
import Foundation

extension JSONImporter {
    struct AccountPlay: Decodable {
        var endTime: String
        var artistName: String
        var trackName: String
        var msPlayed: Milliseconds
    }

    func importStreamingHistory(_ plays: [AccountPlay]) throws {
        for (index, play) in plays.enumerated() {
            try context.row(bytesRead: 0) {
                guard let endedAt = JSONImporter.isoMinute(play.endTime) else {
                    throw context.error(
                        field: "[\(index)].endTime",
                        "expected a time as \"YYYY-MM-DD HH:MM\" (UTC), found \"\(play.endTime)\""
                    )
                }
                guard let msPlayed = play.msPlayed.value else {
                    throw context.error(field: "[\(index)].msPlayed", play.msPlayed.problem)
                }
                try context.writer.write(
                    LibraryWriter.Play(
                        endedAt: endedAt,
                        msPlayed: msPlayed,
                        trackName: play.trackName,
                        artistName: play.artistName
                    ),
                    trackID: nil,
                    source: format.source
                )
            }
        }
    }

    /// `2021-04-22 05:41` → `2021-04-22T05:41:00Z`.
    static func isoMinute(_ text: String) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 16, utf8[4] == 0x2D, utf8[7] == 0x2D, utf8[10] == 0x20, utf8[13] == 0x3A else { return nil }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15]
        guard digits.allSatisfy({ utf8[$0] >= 0x30 && utf8[$0] <= 0x39 }) else { return nil }
        return String(text.prefix(10)) + "T" + String(text.suffix(5)) + ":00Z"
    }
}
