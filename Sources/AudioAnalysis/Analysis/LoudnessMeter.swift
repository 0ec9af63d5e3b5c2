import CEBUR128

/// EBU R128 integrated loudness and loudness range, with libebur128.
///
/// Mono is measured as dual mono, as ITU-R BS.1770 asks for a mono file played on two speakers;
/// so a mono file and the same audio as identical stereo channels measure the same.
final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?
    private let channels: Int

    init(channels: Int, sampleRate: Int) {
        self.channels = channels
        state = ebur128_init(
            UInt32(channels),
            UInt(sampleRate),
            Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue)
        )
        if channels == 1 { ebur128_set_channel(state, 0, Int32(EBUR128_DUAL_MONO.rawValue)) }
    }

    deinit { ebur128_destroy(&state) }

    /// Adds interleaved samples.
    func add(_ samples: UnsafeBufferPointer<Float>) {
        guard let base = samples.baseAddress, let state else { return }
        ebur128_add_frames_float(state, base, samples.count / channels)
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
