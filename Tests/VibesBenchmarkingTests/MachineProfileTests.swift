import Analytics
import Foundation
import Numerics
import Testing

@testable import VibesBenchmarking

struct MachineProfileTests {
    @Test func aShortProbeMeasuresEveryThreadCount() async {
        var options = MachineProfile.ProbeOptions()
        options.bandwidthBufferBytes = 4 << 20
        options.multiplyAddDuration = .milliseconds(2)
        options.attempts = 1
        let profile = await MachineProfile.measure(threadCounts: [2, 1, 2], options: options)
        #expect(profile.rooflines.map(\.threadCount) == [1, 2])
        for roofline in profile.rooflines {
            #expect(roofline.readBandwidth > 0 && roofline.readBandwidth.isFinite)
            #expect(roofline.multiplyAddPeak > 0 && roofline.multiplyAddPeak.isFinite)
        }
        #expect(profile.logicalCPUCount >= 1)
        #expect(profile.buildConfiguration.hasPrefix("debug") || profile.buildConfiguration.hasPrefix("release"))
        #expect(profile.compiler.hasPrefix("Swift "))
        #expect(!profile.cpuModel.isEmpty)
        #expect(profile.blas?.contains("OpenBLAS") == true)
        #expect(profile.roofline(threadCount: 2) == profile.rooflines[1])
        #expect(profile.roofline(threadCount: 3) == nil)
        #expect(MachineProfile.MultiplyAddShape.allCases.map(\.description).contains(profile.multiplyAddLoop))
    }

    @Test func cpuInfoIsReadForTheModelAndTheVectorExtensions() {
        let text = """
            processor\t: 0
            vendor_id\t: AuthenticAMD
            model name\t: AMD EPYC 9R14 96-Core Processor
            flags\t\t: fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c avx2 bmi2

            processor\t: 1
            model name\t: AMD EPYC 9R14 96-Core Processor
            """
        #expect(MachineProfile.cpuModel(fromCPUInfo: text) == "AMD EPYC 9R14 96-Core Processor")
        #expect(MachineProfile.vectorExtensions(fromCPUInfo: text) == ["sse4_2", "avx", "avx2", "fma"])
        #expect(MachineProfile.cpuModel(fromCPUInfo: "") == nil)
        #expect(MachineProfile.vectorExtensions(fromCPUInfo: "") == [])
    }

    @Test func theRooflineIsTheSlowerOfReadingAndComputing() {
        let roofline = Roofline(threadCount: 1, readBandwidth: 10e9, multiplyAddPeak: 100e9)
        #expect(roofline.minimumSeconds(bytes: 1e9, flops: 1e9).isApproximatelyEqual(to: 0.1))
        #expect(roofline.minimumSeconds(bytes: 1e6, flops: 1e11).isApproximatelyEqual(to: 1))
    }

    @Test func theMultiplyAddLoopsComputeWhatTheyCount() {
        // One pass: each of the 12 accumulators a ↦ a · m + c, starting at seed … seed + 11.
        let m: Float = 0.999_999
        let c: Float = 1e-7
        let perLane = (0..<12).map { Float($0) + 1 }.map { $0 * m + c }.reduce(0, +)
        let four = MachineProfile.multiplyAddLoop(SIMD4<Float>.self, iterations: 1, seed: 1)
        let eight = MachineProfile.multiplyAddLoop(SIMD8<Float>.self, iterations: 1, seed: 1)
        #expect(four.isApproximatelyEqual(to: perLane * 4, relativeTolerance: 1e-5))
        #expect(eight.isApproximatelyEqual(to: perLane * 8, relativeTolerance: 1e-5))
        #expect(MachineProfile.MultiplyAddShape.simd4.flopsPerIteration == 12 * 4 * 2)
        #expect(MachineProfile.MultiplyAddShape.simd8.flopsPerIteration == 12 * 8 * 2)
    }

    @Test func loadIsMeasuredOverAWindowAndJudged() async {
        let load = await MachineLoad.measure(over: .milliseconds(30))
        #expect(load.windowSeconds >= 0.02)
        #expect(load.logicalCPUCount >= 1)
        if let share = load.otherProcessesShare { #expect((0...1).contains(share)) }
        if let steal = load.stealShare { #expect((0...1).contains(steal)) }

        let quiet = MachineLoad(
            loadAverage: 0.2,
            logicalCPUCount: 2,
            otherProcessesShare: 0.05,
            stealShare: 0,
            windowSeconds: 1
        )
        #expect(!quiet.isBusy)
        var loaded = quiet
        loaded.loadAverage = 1.5
        #expect(loaded.isBusy)
        #expect(!loaded.isBusy(includingLoadAverage: false))
        var shared = quiet
        shared.otherProcessesShare = 0.4
        #expect(shared.isBusy(includingLoadAverage: false))
        var stolen = quiet
        stolen.stealShare = 0.1
        #expect(stolen.isBusy)
    }

    @Test func peakMemorySeesAnAllocationAfterAReset() throws {
        let wasReset = ResidentMemory.resetPeak()
        let buffer = MachineProfile.makeProbeBuffer(byteCount: 64 << 20)
        let peak = try #require(ResidentMemory.peak(wasReset: wasReset))
        #expect(buffer.count == 16 << 20)
        #expect(peak.bytes >= 64 << 20)
        #if os(Linux)
        #expect(peak.scope == (wasReset ? .configuration : .process))
        #endif
    }
}
