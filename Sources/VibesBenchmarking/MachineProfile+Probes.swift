import Analytics
import CBLAS
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The pointer code of the benchmarking tools (style rule 25): every `withUnsafe…`, C call and
// CBLAS query of `Benchmarking/` is in this file, and no pointer leaves its closure.

extension MachineProfile {
    /// A `Float` array of `byteCount` bytes whose every page has been written, so that reading it
    /// reads memory rather than the kernel's shared zero page.
    static func makeProbeBuffer(byteCount: Int) -> [Float] {
        let count = Swift.max(1, byteCount / MemoryLayout<Float>.size)
        return [Float](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            // 0x3C3C3C3C is the float 0.0115: finite, so sums stay finite.
            memset(buffer.baseAddress!, 0x3C, count * MemoryLayout<Float>.size)
            initializedCount = count
        }
    }

    /// Sums the elements of `buffer` in `range` with four 8-lane accumulators, 4 KiB at a time,
    /// stopping early once `deadline` has passed.
    ///
    /// - Returns: The number of elements read and their sum.
    static func sumFloats(_ buffer: [Float], in range: Range<Int>, deadline: ContinuousClock.Instant) -> (Int, Float) {
        let clock = ContinuousClock()
        let chunk = 1_024  // floats: 4 KiB
        var read = 0
        var total = SIMD8<Float>()
        buffer.withUnsafeBufferPointer { pointer in
            let raw = UnsafeRawPointer(pointer.baseAddress!)
            var start = range.lowerBound
            while start + chunk <= range.upperBound {
                let end = Swift.min(range.upperBound, start + 256 * chunk)  // check the clock every MiB
                var s0 = SIMD8<Float>()
                var s1 = SIMD8<Float>()
                var s2 = SIMD8<Float>()
                var s3 = SIMD8<Float>()
                var index = start
                while index &+ 32 <= end {
                    let offset = index &* 4
                    s0 += raw.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                    s1 += raw.loadUnaligned(fromByteOffset: offset &+ 32, as: SIMD8<Float>.self)
                    s2 += raw.loadUnaligned(fromByteOffset: offset &+ 64, as: SIMD8<Float>.self)
                    s3 += raw.loadUnaligned(fromByteOffset: offset &+ 96, as: SIMD8<Float>.self)
                    index &+= 32
                }
                total += (s0 + s1) + (s2 + s3)
                read += index - start
                start = index
                if clock.now >= deadline { break }
            }
        }
        return (read, total.sum())
    }

    /// OpenBLAS's description of itself (`openblas_get_config()`): version, build options and the
    /// kernel it chose for this processor.
    static var blasConfiguration: String? {
        guard let text = openblas_get_config() else { return nil }
        let configuration = String(cString: text).trimmingCharacters(in: .whitespaces)
        guard let core = openblas_get_corename() else { return configuration }
        let coreName = String(cString: core)
        return configuration.localizedCaseInsensitiveContains(coreName)
            ? configuration : configuration + " (core \(coreName))"
    }

}

extension ResidentMemory {
    /// The process's peak resident memory, in bytes, from `getrusage`: the peak of its whole life.
    static func processPeakBytes() -> Int? {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return nil }
        #if canImport(Darwin)
        return Int(usage.ru_maxrss)  // bytes on Darwin
        #else
        return Int(usage.ru_maxrss) * 1024  // KiB on Linux
        #endif
    }
}
