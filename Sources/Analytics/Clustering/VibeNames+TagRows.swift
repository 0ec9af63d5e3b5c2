import Features

extension VibeNames {
    /// The genre tags of each row of a feature table, numbered: what names vibes, held as a few
    /// bytes a tag instead of a set of texts per track.
    ///
    /// Row *r*'s tags are `rowTags[rowStarts[r]..<rowStarts[r + 1]]`, distinct, each an index into
    /// ``names``, whose texts are distinct as strings. A million tracks' tags come to a few
    /// megabytes and are counted per vibe in one pass
    /// (``profiles(table:tableRows:labels:clusterCount:tagRows:)``).
    public struct TagRows: Hashable, Sendable {
        /// The text of each tag, by number.
        public var names: [String]
        /// Where each row's tags start in ``rowTags``, and where the last ends: one more than the
        /// number of rows.
        public var rowStarts: [Int]
        /// The tags of every row, end to end.
        public var rowTags: [Int32]

        public init(names: [String], rowStarts: [Int], rowTags: [Int32]) {
            self.names = names
            self.rowStarts = rowStarts
            self.rowTags = rowTags
        }

        /// The tags of each of `trackIDs` in `tags` (none for a track it lacks), numbered in text
        /// order.
        public init(_ tags: [Int64: Set<String>], trackIDs: [Int64]) {
            var numbers: [String: Int32] = [:]
            for set in tags.values { for tag in set { numbers[tag] = 0 } }
            names = numbers.keys.sorted()
            for (number, name) in names.enumerated() { numbers[name] = Int32(number) }
            rowStarts = [0]
            rowStarts.reserveCapacity(trackIDs.count + 1)
            rowTags = []
            for id in trackIDs {
                rowTags.append(contentsOf: (tags[id] ?? []).map { numbers[$0]! })
                rowStarts.append(rowTags.count)
            }
        }

        /// The number of rows.
        public var rowCount: Int { max(0, rowStarts.count - 1) }
    }

    /// The tags that set each cluster apart, as ``distinctiveTags(trackIDs:labels:clusterCount:tags:)``
    /// chooses them, from numbered tags: counted per cluster in arrays, with no text hashed per
    /// track.
    ///
    /// - Parameters:
    ///   - tableRows: The table row of each clustered row.
    ///   - labels: The cluster of each clustered row.
    ///   - tags: The tags of every table row.
    /// - Complexity: O(*n* · *t* + *k* · *T*) for *n* rows of *t* tags each, *k* clusters and *T*
    ///   distinct tags.
    static func distinctiveTags(
        tableRows: [Int32],
        labels: [Int32],
        clusterCount: Int,
        tags: TagRows
    ) -> [[String]] {
        let tagCount = tags.names.count
        var overall = [Int](repeating: 0, count: tagCount)
        var perCluster = [Int](repeating: 0, count: clusterCount * tagCount)
        var tagged = [Int](repeating: 0, count: clusterCount)
        var taggedTotal = 0
        for (row, label) in zip(tableRows, labels) {
            let (start, end) = (tags.rowStarts[Int(row)], tags.rowStarts[Int(row) + 1])
            guard end > start else { continue }
            taggedTotal += 1
            tagged[Int(label)] += 1
            let base = Int(label) * tagCount
            for position in start..<end {
                let tag = Int(tags.rowTags[position])
                overall[tag] += 1
                perCluster[base + tag] += 1
            }
        }
        return (0..<clusterCount).map { cluster in
            let counts = (0..<tagCount).lazy.filter { perCluster[cluster * tagCount + $0] > 0 }.map {
                (tag: tags.names[$0], count: perCluster[cluster * tagCount + $0], overall: overall[$0])
            }
            return mostDistinctive(counts, tagged: tagged[cluster], taggedTotal: taggedTotal)
        }
    }
}
