import CAubio
import Foundation

/// An aubio FFT (over FFTW) of one size with its input frame and output spectrum, made together
/// under the creation lock and freed together.
final class AubioFFT {
    let size: Int
    private let fft: OpaquePointer
    private let frame: UnsafeMutablePointer<fvec_t>
    private let spectrum: UnsafeMutablePointer<cvec_t>

    /// - Throws: ``LibraryCallFailure`` when aubio cannot make its FFT or vectors (out of
    ///   memory); whatever was made is freed.
    init(size: Int) throws {
        self.size = size
        let length = UInt32(size)
        let made = AubioObjects.withCreationLock { (new_aubio_fft(length), new_fvec(length), new_cvec(length)) }
        guard let fft = made.0, let frame = made.1, let spectrum = made.2, frame.pointee.data != nil else {
            if let fft = made.0 { del_aubio_fft(fft) }
            if let frame = made.1 { del_fvec(frame) }
            if let spectrum = made.2 { del_cvec(spectrum) }
            throw LibraryCallFailure(call: made.0 == nil ? "new_aubio_fft" : made.1 == nil ? "new_fvec" : "new_cvec")
        }
        (self.fft, self.frame, self.spectrum) = (fft, frame, spectrum)
    }

    deinit {
        del_aubio_fft(fft)
        del_fvec(frame)
        del_cvec(spectrum)
    }

    /// The input frame, `size` samples, to fill before ``transform()``.
    var input: UnsafeMutablePointer<Float> { frame.pointee.data! }

    /// The magnitudes of the last transform, `size / 2 + 1` bins.
    var magnitudes: UnsafeMutablePointer<Float> { spectrum.pointee.norm! }

    /// The phases of the last transform, `size / 2 + 1` bins.
    var phases: UnsafeMutablePointer<Float> { spectrum.pointee.phas! }

    /// Transforms the input frame.
    func transform() {
        aubio_fft_do(fft, frame, spectrum)
    }
}

/// Samples kept until a frame is complete, handed out a frame at a time every `hopSize` samples.
struct FrameBuffer {
    let frameSize: Int
    let hopSize: Int
    private var pending: [Float]

    /// - Parameter padding: Zeros before the first sample (half a frame centres the first frame on it).
    init(frameSize: Int, hopSize: Int, padding: Int = 0) {
        (self.frameSize, self.hopSize) = (frameSize, hopSize)
        pending = [Float](repeating: 0, count: padding)
        pending.reserveCapacity(frameSize * 2 + padding)
    }

    /// The samples received and not yet dropped: fewer than a frame between calls of ``add(_:each:)``.
    var remaining: Int { pending.count }

    /// Adds `samples` and calls `body` with each frame they complete.
    mutating func add(_ samples: UnsafeBufferPointer<Float>, each body: (UnsafeBufferPointer<Float>) -> Void) {
        pending.append(contentsOf: samples)
        var start = 0
        while pending.count - start >= frameSize {
            pending.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<(start + frameSize)])) }
            start += hopSize
        }
        if start > 0 { pending.removeFirst(start) }
    }

    /// Calls `body` with the remaining samples padded with zeros to a frame, and empties the buffer.
    mutating func flush(_ body: (UnsafeBufferPointer<Float>) -> Void) {
        pending.append(contentsOf: repeatElement(0, count: max(0, frameSize - pending.count)))
        pending.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<frameSize])) }
        pending.removeAll()
    }
}
