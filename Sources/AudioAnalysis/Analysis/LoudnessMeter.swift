import CEBUR128

/// EBU R128 integrated loudness and loudness range, with libebur128.
///
/// Mono is measured as dual mono, as ITU-R BS.1770 asks for a mono file played on two speakers;
/// so a mono file and the same audio as identical stereo channels measure the same.
final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?
    private let channels: Int

    /// A meter for `channels` interleaved channels at `sampleRate` Hz, or `nil` when libebur128
    /// refuses them (it takes 1 to 64 channels at 16 Hz to 2.8 MHz) or is out of memory.
    init?(channels: Int, sampleRate: Int) {
        guard channels > 0, sampleRate > 0, let channelCount = UInt32(exactly: channels),
            let rate = UInt(exactly: sampleRate),
            let state = ebur128_init(channelCount, rate, Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue))
        else { return nil }
        self.channels = channels
        self.state = state
        if channels == 1 {
            guard ebur128_set_channel(state, 0, Int32(EBUR128_DUAL_MONO.rawValue)) == Int32(EBUR128_SUCCESS.rawValue)
            else {
                return nil
            }
        }
    }

    deinit { ebur128_destroy(&state) }

    /// Adds interleaved samples.
    ///
    /// - Throws: ``LibraryCallFailure`` when libebur128 fails (out of memory).
    func add(_ samples: UnsafeBufferPointer<Float>) throws {
        guard let base = samples.baseAddress, let state, samples.count >= channels else { return }
        guard ebur128_add_frames_float(state, base, samples.count / channels) == Int32(EBUR128_SUCCESS.rawValue) else {
            throw LibraryCallFailure(call: "ebur128_add_frames_float")
        }
    }

    /// Integrated loudness in LUFS, or `nil` when everything was below the absolute gate (silence).
    var integratedLoudness: Double? {
        var value = 0.0
        guard let state, ebur128_loudness_global(state, &value) == 0, value.isFinite else { return nil }
        return value
    }

    /// Loudness range in LU, or `nil` when too short to measure.
    var loudnessRange: Double? {
        var value = 0.0
        guard let state, ebur128_loudness_range(state, &value) == 0, value.isFinite else { return nil }
        return value
    }
}
