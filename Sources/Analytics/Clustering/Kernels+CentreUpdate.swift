extension Kernels {
    // MARK: - Accumulating a run

    /// Stores the labels of one run, counts them and the changed ones, and adds each row to its
    /// cluster's partial sum (even rows to the first `k × d` sums, odd rows to the second); with
    /// `changes`, only the rows whose label changed, each also added to the third `k × d` sums
    /// (those of the rows leaving a cluster) under its old label, if it had one. Returns the
    /// number of changed labels. Specialized for each `Width` (``FeatureCount``), so that the row
    /// additions unroll for the common widths.
    @inline(__always)
    static func accumulateRun<Width: FeatureCount>(
        _ x: UnsafeBufferPointer<Float>,
        run: Range<Int>,
        d runtimeD: Int,
        as _: Width.Type,
        _ runLabels: UnsafeBufferPointer<Int32>,
        _ labels: UnsafeMutableBufferPointer<Int32>,
        _ counts: UnsafeMutableBufferPointer<Int>,
        _ runSums: UnsafeMutableBufferPointer<Float>,
        changes: Bool
    ) -> Int {
        let d = Width.value ?? runtimeD
        var changed = 0
        @inline(__always)
        func join(_ i: Int, _ label: Int32, leaving old: Int32) {
            moveRow(x.baseAddress! + i &* d, to: label, from: old, parity: i & 1, d: d, counts, runSums)
        }
        var first = run.lowerBound
        #if arch(x86_64)
        if changes {
            // 8 rows at a time: one comparison finds the rows whose label changed (few, after the
            // first passes), whose lanes are then taken one by one.
            while first &+ rowsPerBlock <= run.upperBound {
                let new = UnsafeRawPointer(runLabels.baseAddress! + (first &- run.lowerBound))
                    .loadUnaligned(as: SIMD8<Int32>.self)
                let old = UnsafeRawPointer(labels.baseAddress! + first).loadUnaligned(as: SIMD8<Int32>.self)
                var lanes = laneBits(new .!= old)
                if lanes != 0 {
                    UnsafeMutableRawPointer(labels.baseAddress! + first).storeBytes(of: new, as: SIMD8<Int32>.self)
                    changed &+= lanes.nonzeroBitCount
                    repeat {
                        let lane = lanes.trailingZeroBitCount
                        join(first &+ lane, new[lane], leaving: old[lane])
                        lanes &= lanes &- 1
                    } while lanes != 0
                }
                first &+= rowsPerBlock
            }
        }
        #endif
        for i in first..<run.upperBound {
            let label = runLabels[i &- run.lowerBound]
            let old = labels[i]
            labels[i] = label
            if old != label { changed &+= 1 }
            if changes {
                if old != label { join(i, label, leaving: old) }
            } else {
                join(i, label, leaving: -1)
            }
        }
        return changed
    }

    /// Adds a run's partial sums to `sums` in a fixed order (the first `k × d` plus the second,
    /// less the third: rows joining less rows leaving) and sets them back to zero for the next run.
    /// `sums` holds `k × d` values and `runSums` three times as many.
    @inline(__always)
    static func addRunSums(_ runSums: UnsafeMutableBufferPointer<Float>, into sums: inout [Double]) {
        let stride = sums.count
        for index in 0..<stride {
            sums[index] +=
                Double(runSums[index]) + Double(runSums[stride &+ index]) - Double(runSums[2 &* stride &+ index])
            runSums[index] = 0
            runSums[stride &+ index] = 0
            runSums[2 &* stride &+ index] = 0
        }
    }

    /// Counts `row` in cluster `label` and adds it to that cluster's partial sum, the first or
    /// second `k × d` sums of `runSums` by `parity` (so that consecutive rows of one cluster do
    /// not wait on each other's stores); if it had a cluster `old` (not negative), uncounts it
    /// there and adds it to the third sums, those of the rows leaving a cluster.
    @inline(__always)
    static func moveRow(
        _ row: UnsafePointer<Float>,
        to label: Int32,
        from old: Int32,
        parity: Int,
        d: Int,
        _ counts: UnsafeMutableBufferPointer<Int>,
        _ runSums: UnsafeMutableBufferPointer<Float>
    ) {
        let stride = counts.count &* d
        counts[Int(label)] &+= 1
        add(row, into: runSums.baseAddress! + (parity &* stride &+ Int(label) &* d), count: d)
        if old >= 0 {
            counts[Int(old)] &-= 1
            add(row, into: runSums.baseAddress! + (2 &* stride &+ Int(old) &* d), count: d)
        }
    }

    // MARK: - Feature counts

    /// A number of features fixed in a type, so that a function generic over it is specialized
    /// with the number a constant (and its loops over features unrolled) even where the compiler
    /// does not inline it.
    protocol FeatureCount {
        /// The number of features, or `nil` for a number known only at run time.
        static var value: Int? { get }
    }

    enum TwelveFeatures: FeatureCount { static var value: Int? { 12 } }
    enum TenFeatures: FeatureCount { static var value: Int? { 10 } }
    enum AnyFeatureCount: FeatureCount { static var value: Int? { nil } }

    // MARK: - Adding rows

    /// Adds `count` floats at `source` to `target`, four at a time.
    @inline(__always)
    static func add(_ source: UnsafePointer<Float>, into target: UnsafeMutablePointer<Float>, count: Int) {
        var j = 0
        while j &+ 4 <= count {
            let a = UnsafeRawPointer(source + j).loadUnaligned(as: SIMD4<Float>.self)
            let b = UnsafeRawPointer(target + j).loadUnaligned(as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(target + j).storeBytes(of: a + b, as: SIMD4<Float>.self)
            j &+= 4
        }
        while j < count {
            target[j] += source[j]
            j &+= 1
        }
    }
}
