import Features
import Foundation

extension MoodReport {
    /// The weekday labels, Monday first.
    static let weekdayLabels = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Running sums of one time bucket.
    struct BucketSums {
        var plays = 0
        var msPlayed = 0
        var skips = 0
        var skippedMS = 0
        var playsWithSkipData = 0
        var msWithFeatures = 0
        var valenceSum = 0.0
        var energySum = 0.0

        func bucket(label: String) -> TimeBucket {
            TimeBucket(
                label: label,
                plays: plays,
                msPlayed: msPlayed,
                skips: skips,
                skippedMS: skippedMS,
                playsWithSkipData: playsWithSkipData,
                msWithFeatures: msWithFeatures,
                valence: msWithFeatures > 0 ? valenceSum / Double(msWithFeatures) : nil,
                energy: msWithFeatures > 0 ? energySum / Double(msWithFeatures) : nil
            )
        }
    }

    /// The local month, weekday (0 = Monday) and hour a play ended in.
    static func localBucket(of date: Date, calendar: Calendar) -> (year: Int, month: Int, weekday: Int, hour: Int) {
        let parts = calendar.dateComponents([.year, .month, .weekday, .hour], from: date)
        // Calendar weekdays run from 1 = Sunday; shift so that Monday is 0.
        return (parts.year!, parts.month!, (parts.weekday! + 5) % 7, parts.hour!)
    }

    static func listening(input: Input, rows: ReportRows) -> Listening {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = input.timeZone
        // A played track's valence and energy, found by its row in the table.
        func mood(_ id: Int64) -> (Double, Double)? {
            guard let row = rows.tableIndex.index(of: id),
                let v = input.table.value(row: row, feature: .valence),
                let e = input.table.value(row: row, feature: .energy)
            else { return nil }
            return (decimal(v), decimal(e))
        }
        var months: [Int: BucketSums] = [:]  // year * 12 + month - 1
        var weekdays = [BucketSums](repeating: BucketSums(), count: 7)
        var hours = [BucketSums](repeating: BucketSums(), count: 24)
        var total = BucketSums()
        var withoutFeatures = (plays: 0, ms: 0)
        var unmatched = 0
        var soft = (happy: 0.0, sad: 0.0, angry: 0.0, chill: 0.0)
        var playsWithFeatures = 0
        var first = input.plays[0].endedAt
        var last = first

        for play in input.plays {
            first = Swift.min(first, play.endedAt)
            last = Swift.max(last, play.endedAt)
            if play.trackID == nil { unmatched += 1 }
            let local = localBucket(of: play.endedAt, calendar: calendar)
            let point = play.isSkip ? nil : play.trackID.flatMap(mood)
            if !play.isSkip && point == nil {
                withoutFeatures.plays += 1
                withoutFeatures.ms += play.msPlayed
            }
            if let point {
                playsWithFeatures += 1
                let weight = Double(play.msPlayed)
                let moods = softMoods(
                    valence: Swift.min(1, Swift.max(0, point.0)),
                    energy: Swift.min(1, Swift.max(0, point.1))
                )
                soft.happy += weight * moods.happy
                soft.sad += weight * moods.sad
                soft.angry += weight * moods.angry
                soft.chill += weight * moods.chill
            }
            func add(_ sums: inout BucketSums) {
                sums.plays += 1
                sums.msPlayed += play.msPlayed
                if play.isSkip {
                    sums.skips += 1
                    sums.skippedMS += play.msPlayed
                }
                if play.skipIsRecorded || play.isSkip { sums.playsWithSkipData += 1 }
                if let point {
                    sums.msWithFeatures += play.msPlayed
                    sums.valenceSum += Double(play.msPlayed) * point.0
                    sums.energySum += Double(play.msPlayed) * point.1
                }
            }
            add(&months[local.year * 12 + local.month - 1, default: BucketSums()])
            add(&weekdays[local.weekday])
            add(&hours[local.hour])
            add(&total)
        }

        let firstMonth = months.keys.min()!
        let lastMonth = months.keys.max()!
        let byMonth = (firstMonth...lastMonth).map { key in
            (months[key] ?? BucketSums()).bucket(label: String(format: "%04d-%02d", key / 12, key % 12 + 1))
        }
        let weight = Double(total.msWithFeatures)
        var vibeListening: [VibeListening] = []
        if let run = input.run {
            let listened = MoodReport.vibeListening(input: input, run: run)
            let sum = listened.values.reduce(0, +)
            vibeListening = run.vibes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }.map {
                vibe in
                let ms = listened[vibe.cluster] ?? 0
                return VibeListening(
                    name: vibe.name,
                    msPlayed: ms,
                    listenedShare: sum > 0 ? Double(ms) / Double(sum) : 0,
                    libraryShare: vibe.share
                )
            }
        }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = input.timeZone
        let overall = total.bucket(label: "all")
        return Listening(
            plays: total.plays,
            msPlayed: total.msPlayed,
            skips: total.skips,
            skippedMS: total.skippedMS,
            playsWithSkipData: total.playsWithSkipData,
            playsWithFeatures: playsWithFeatures,
            msWithFeatures: total.msWithFeatures,
            playsWithoutFeatures: withoutFeatures.plays,
            msWithoutFeatures: withoutFeatures.ms,
            unmatchedPlays: unmatched,
            firstPlay: formatter.string(from: first),
            lastPlay: formatter.string(from: last),
            valence: overall.valence,
            energy: overall.energy,
            softMoods: weight > 0
                ? MoodMap.SoftMoods(
                    happy: soft.happy / weight,
                    sad: soft.sad / weight,
                    angry: soft.angry / weight,
                    chill: soft.chill / weight
                )
                : nil,
            byMonth: byMonth,
            byWeekday: weekdays.enumerated().map { $1.bucket(label: weekdayLabels[$0]) },
            byHour: hours.enumerated().map { $1.bucket(label: String(format: "%02d", $0)) },
            vibes: vibeListening
        )
    }
}
