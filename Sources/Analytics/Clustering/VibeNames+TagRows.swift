import Features

extension VibeNames {
    /// The genre tags of each row of a feature table, numbered: what names vibes, held as a few
    /// bytes a tag instead of a set of texts per track.
    ///
    /// Row *r*'s tags are `rowTags[rowStarts[r]..<rowStarts[r + 1]]`, distinct, each an index into
    /// ``names``, whose texts are distinct as strings. A million tracks' tags come to a few
    /// megabytes and are counted per vibe in one pass
    /// (``profiles(table:tableRows:labels:clusterCount:tagRows:threadCount:)``).
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
    ///   - threadCount: The threads that count the tags, each over its share of the rows; the
    ///     counts are whole numbers, so they do not depend on it.
    /// - Complexity: O(*n* · *t* + *k* · *T*) for *n* rows of *t* tags each, *k* clusters and *T*
    ///   distinct tags.
    static func distinctiveTags(
        tableRows: [Int32],
        labels: [Int32],
        clusterCount: Int,
        tags: TagRows,
        threadCount: Int = 1
    ) -> [[String]] {
        let tagCount = tags.names.count
        // The counting below reads through pointers: what it reads must be in bounds.
        precondition(labels.count == tableRows.count, "One label per clustered row.")
        precondition(
            tags.rowStarts.first == 0 && tags.rowStarts.last == tags.rowTags.count
                && zip(tags.rowStarts, tags.rowStarts.dropFirst()).allSatisfy { $0 <= $1 },
            "Row starts ascend from 0 to the number of tags."
        )
        precondition(tableRows.allSatisfy { $0 >= 0 && Int($0) < tags.rowCount }, "Table rows out of range.")
        let parts = tableRows.withUnsafeBufferPointer { tableRows in
            labels.withUnsafeBufferPointer { labels in
                tags.rowStarts.withUnsafeBufferPointer { rowStarts in
                    tags.rowTags.withUnsafeBufferPointer { rowTags in
                        Kernels.parallelChunks(
                            KMeans.blocks(of: tableRows.count, parts: threadCount),
                            threadCount: threadCount
                        ) { rows in
                            var part = TagCounts(clusterCount: clusterCount, tagCount: tagCount)
                            for index in rows {
                                let row = Int(tableRows[index])
                                let (start, end) = (rowStarts[row], rowStarts[row + 1])
                                guard end > start else { continue }
                                let label = Int(labels[index])
                                part.taggedTotal += 1
                                part.tagged[label] += 1
                                let base = label * tagCount
                                for position in start..<end {
                                    let tag = Int(rowTags[position])
                                    part.overall[tag] += 1
                                    part.perCluster[base + tag] += 1
                                }
                            }
                            return part
                        }
                    }
                }
            }
        }
        var total = TagCounts(clusterCount: clusterCount, tagCount: tagCount)
        for part in parts { total.add(part) }
        let (overall, perCluster, tagged, taggedTotal) = (
            total.overall, total.perCluster, total.tagged, total.taggedTotal
        )
        return (0..<clusterCount).map { cluster in
            let counts = (0..<tagCount).lazy.filter { perCluster[cluster * tagCount + $0] > 0 }.map {
                (tag: tags.names[$0], count: perCluster[cluster * tagCount + $0], overall: overall[$0])
            }
            return mostDistinctive(counts, tagged: tagged[cluster], taggedTotal: taggedTotal)
        }
    }

    /// How many rows hold each tag, in all and per cluster, and how many rows hold any tag.
    private struct TagCounts {
        /// Per tag, the rows holding it.
        var overall: [Int]
        /// Per cluster and tag (`cluster × tags + tag`), the members holding it.
        var perCluster: [Int]
        /// Per cluster, the members holding any tag.
        var tagged: [Int]
        /// The rows holding any tag.
        var taggedTotal = 0

        init(clusterCount: Int, tagCount: Int) {
            overall = [Int](repeating: 0, count: tagCount)
            perCluster = [Int](repeating: 0, count: clusterCount * tagCount)
            tagged = [Int](repeating: 0, count: clusterCount)
        }

        /// Adds the counts of other rows.
        mutating func add(_ other: TagCounts) {
            for index in overall.indices { overall[index] += other.overall[index] }
            for index in perCluster.indices { perCluster[index] += other.perCluster[index] }
            for index in tagged.indices { tagged[index] += other.tagged[index] }
            taggedTotal += other.taggedTotal
        }
    }
}
