import CFFmpeg
import Foundation

/// Decodes an audio file as a stream with FFmpeg's libavformat, libavcodec and libswresample.
///
/// The decoder hands out several views of the same audio as it goes, a block at a time, so memory
/// stays bounded whatever the file's length and the file is read once: the signal at its own sample
/// rate as interleaved `Float` (mono, or stereo with more channels mixed down), for loudness; and one
/// or more mono signals (``MonoSignal``), such as ``MonoSignal/analysis`` for rhythm, pitch and
/// timbre, ``MonoSignal/tempo`` for the tempo and ``MonoSignal/tagger`` for the music tagger.
final class AudioDecoder {
    /// The rate of the mono analysis signal: enough for pitch up to 5 kHz and for beat tracking.
    static let analysisSampleRate = MonoSignal.analysis.sampleRate

    /// A mono signal made from the file by its own resampler.
    struct MonoSignal: Hashable {
        /// The signal's rate, in Hz.
        var sampleRate: Int
        /// Whether the signal is the channels' mean (as librosa mixes down) rather than
        /// libswresample's default downmix, which sums stereo at −3 dB each.
        var averagesChannels: Bool

        /// The signal of rhythm, pitch and timbre: 22,050 Hz, libswresample's downmix.
        static let analysis = MonoSignal(sampleRate: 22_050, averagesChannels: false)
        /// The signal of the tempo: 44.1 kHz, the channels' mean, as Essentia's `MonoLoader` makes
        /// it for `RhythmExtractor2013` (``ComplexDomainOnsets/sampleRate``).
        static let tempo = MonoSignal(sampleRate: ComplexDomainOnsets.sampleRate, averagesChannels: true)
        /// What the music tagger hears: 16 kHz, the channels' mean (``MusicTagger/sampleRate``).
        static let tagger = MonoSignal(sampleRate: MusicTagger.sampleRate, averagesChannels: true)
    }

    /// What the container says about the file.
    struct StreamInfo {
        var codec: String
        var sampleRate: Int
        var channels: Int
        /// The container's duration, when it states one.
        var declaredDuration: Double?
        /// Tags of the container and of the audio stream, lower-cased keys.
        var tags: [String: String]
    }

    let file: AudioFile
    let info: StreamInfo
    /// The mono signals handed to `decode`'s `mono`, by their index there.
    let monoSignals: [MonoSignal]

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private var nativeResampler: OpaquePointer?
    /// One per mono signal, made by `decode`.
    private var monoResamplers: [OpaquePointer?] = []
    private let streamIndex: Int32
    /// Channels of the native-rate output: 1 or 2.
    let outputChannels: Int

    /// The path in errors: the file's, escaped where it is not UTF-8.
    private var path: String { file.path.description }

    /// Finds the audio stream of `file`, reading its open descriptor.
    ///
    /// FFmpeg reads through callbacks on the descriptor (custom I/O), never by the path: no file
    /// is opened again, and a name that looks like a protocol (`pipe:0`, `concat:…`) is only a
    /// name. The path is handed over as the name, whose extension helps FFmpeg tell formats apart.
    ///
    /// - Throws: ``AudioAnalysisError`` when the file cannot be parsed, holds no audio stream, has
    ///   a codec this FFmpeg cannot decode, or a rate or channel count outside what the analysis
    ///   supports (``AudioAnalyzer/supportedSampleRates``, ``AudioAnalyzer/supportedChannelCounts``).
    ///
    /// - Parameters:
    ///   - file: The open file.
    ///   - monoSignals: The mono signals `decode` hands to `mono`, in this order.
    init(file: AudioFile, monoSignals: [MonoSignal] = [.analysis]) throws(AudioAnalysisError) {
        self.file = file
        self.monoSignals = monoSignals
        Self.quietFFmpegLogging
        let path = file.path.description
        guard let buffer = av_malloc(Self.ioBufferSize) else { throw .libraryFailure(path: path, call: "av_malloc") }
        guard
            let io = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self),
                Int32(Self.ioBufferSize),
                0,
                Unmanaged.passUnretained(file).toOpaque(),
                { opaque, buffer, size in AudioDecoder.readCallback(opaque, buffer, size) },
                nil,
                { opaque, offset, whence in AudioDecoder.seekCallback(opaque, offset, whence) }
            )
        else {
            av_free(buffer)
            throw .libraryFailure(path: path, call: "avio_alloc_context")
        }
        self.io = io
        guard let allocated = avformat_alloc_context() else {
            Self.release(io: &self.io)
            throw .libraryFailure(path: path, call: "avformat_alloc_context")
        }
        allocated.pointee.pb = io
        var context: UnsafeMutablePointer<AVFormatContext>? = allocated
        // On failure, avformat_open_input frees the context (not the custom I/O).
        var status = file.path.withCString { avformat_open_input(&context, $0, nil, nil) }
        guard status >= 0, let context else {
            Self.release(io: &self.io)
            throw .unreadable(path: path, reason: Self.message(for: status))
        }
        format = context
        status = avformat_find_stream_info(context, nil)
        guard status >= 0 else {
            Self.release(format: &format, codec: &codec, io: &self.io)
            throw .unreadable(path: path, reason: Self.message(for: status))
        }
        var decoderPointer: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, &decoderPointer, 0)
        guard index >= 0, let decoder = decoderPointer, let stream = context.pointee.streams[Int(index)] else {
            Self.release(format: &format, codec: &codec, io: &self.io)
            throw .noAudioStream(path: path)
        }
        streamIndex = index
        guard let codecContext = avcodec_alloc_context3(decoder) else {
            Self.release(format: &format, codec: &codec, io: &self.io)
            throw .libraryFailure(path: path, call: "avcodec_alloc_context3")
        }
        codec = codecContext
        status = avcodec_parameters_to_context(codecContext, stream.pointee.codecpar)
        if status >= 0 { status = avcodec_open2(codecContext, decoder, nil) }
        guard status >= 0 else {
            let name = String(cString: decoder.pointee.name)
            Self.release(format: &format, codec: &codec, io: &self.io)
            throw .unsupported(path: path, codec: name, reason: Self.message(for: status))
        }
        let channels = Int(codecContext.pointee.ch_layout.nb_channels)
        let sampleRate = Int(codecContext.pointee.sample_rate)
        guard AudioAnalyzer.supportedSampleRates.contains(sampleRate) else {
            Self.release(format: &format, codec: &codec, io: &self.io)
            throw .unsupportedSampleRate(
                path: path,
                sampleRate: sampleRate,
                supported: AudioAnalyzer.supportedSampleRates
            )
        }
        guard AudioAnalyzer.supportedChannelCounts.contains(channels) else {
            Self.release(format: &format, codec: &codec, io: &self.io)
            throw .unsupportedChannelCount(
                path: path,
                channels: channels,
                supported: AudioAnalyzer.supportedChannelCounts
            )
        }
        outputChannels = min(channels, 2)

        var declared: Double?
        if stream.pointee.duration > 0, stream.pointee.duration != vibes_av_nopts_value() {
            declared = Double(stream.pointee.duration) * av_q2d(stream.pointee.time_base)
        } else if context.pointee.duration > 0 {
            declared = Double(context.pointee.duration) / Double(AV_TIME_BASE)
        }
        var tags = Self.tags(of: context.pointee.metadata)
        for (key, value) in Self.tags(of: stream.pointee.metadata) where tags[key] == nil { tags[key] = value }
        info = StreamInfo(
            codec: String(cString: decoder.pointee.name),
            sampleRate: sampleRate,
            channels: channels,
            declaredDuration: declared,
            tags: tags
        )
    }

    deinit {
        swr_free(&nativeResampler)
        for index in monoResamplers.indices { swr_free(&monoResamplers[index]) }
        Self.release(format: &format, codec: &codec, io: &io)
    }

    /// Decodes the whole stream, calling `native` with interleaved blocks at the file's rate
    /// (``outputChannels`` channels) and `mono` with blocks of each of ``monoSignals`` and the
    /// signal's index there.
    ///
    /// - Returns: The number of frames decoded at the native rate.
    /// - Throws: ``AudioAnalysisError/decodeFailed(path:reason:)`` when the stream breaks off
    ///   before any audio, or what the callbacks throw.
    func decode(
        native: (UnsafeBufferPointer<Float>) throws -> Void,
        mono: (Int, UnsafeBufferPointer<Float>) throws -> Void
    ) throws -> Int {
        guard let format, let codec else { return 0 }
        try makeResamplers(for: codec)
        guard let packet = av_packet_alloc(), let frame = av_frame_alloc() else {
            throw AudioAnalysisError.libraryFailure(path: path, call: "av_packet_alloc")
        }
        var packetPointer: UnsafeMutablePointer<AVPacket>? = packet
        var framePointer: UnsafeMutablePointer<AVFrame>? = frame
        defer {
            av_packet_free(&packetPointer)
            av_frame_free(&framePointer)
        }
        var nativeBuffer = [Float]()
        var monoBuffers = [[Float]](repeating: [], count: monoResamplers.count)
        var framesDecoded = 0
        var decodeErrors = 0
        var lastError: Int32 = 0

        func drainFrames() throws {
            while true {
                let status = avcodec_receive_frame(codec, frame)
                if status == vibes_averror_eagain() || status == vibes_averror_eof() { return }
                if status < 0 {
                    decodeErrors += 1
                    lastError = status
                    return
                }
                let samples = Int(frame.pointee.nb_samples)
                guard samples <= AudioAnalyzer.maximumFrameSize else {
                    throw AudioAnalysisError.unsupportedFrameSize(
                        path: path,
                        samples: samples,
                        maximum: AudioAnalyzer.maximumFrameSize
                    )
                }
                framesDecoded += samples
                try convert(frame, with: nativeResampler, channels: outputChannels, into: &nativeBuffer, native)
                for (index, resampler) in monoResamplers.enumerated() {
                    try convert(frame, with: resampler, channels: 1, into: &monoBuffers[index]) { try mono(index, $0) }
                }
                av_frame_unref(frame)
            }
        }

        while true {
            let status = av_read_frame(format, packet)
            if status < 0 {
                if status != vibes_averror_eof() { lastError = status }
                break
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0, sent != vibes_averror_eagain() {
                decodeErrors += 1
                lastError = sent
                continue
            }
            try drainFrames()
        }
        avcodec_send_packet(codec, nil)
        try drainFrames()
        try flush(nativeResampler, channels: outputChannels, into: &nativeBuffer, native)
        for (index, resampler) in monoResamplers.enumerated() {
            try flush(resampler, channels: 1, into: &monoBuffers[index]) { try mono(index, $0) }
        }
        if framesDecoded == 0 {
            let reason = lastError < 0 ? Self.message(for: lastError) : "the stream holds no audio"
            throw AudioAnalysisError.decodeFailed(path: path, reason: reason)
        }
        return framesDecoded
    }

    // MARK: - Resampling

    private func makeResamplers(for codec: UnsafeMutablePointer<AVCodecContext>) throws {
        var inputLayout = codec.pointee.ch_layout
        if inputLayout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inputLayout, inputLayout.nb_channels)
        }
        var stereo = AVChannelLayout()
        av_channel_layout_default(&stereo, Int32(outputChannels))
        var mono = AVChannelLayout()
        av_channel_layout_default(&mono, 1)
        let rate = codec.pointee.sample_rate
        let sampleFormat = codec.pointee.sample_fmt
        var status = swr_alloc_set_opts2(
            &nativeResampler,
            &stereo,
            AV_SAMPLE_FMT_FLT,
            rate,
            &inputLayout,
            sampleFormat,
            rate,
            0,
            nil
        )
        if status >= 0 { status = swr_init(nativeResampler) }
        monoResamplers = [OpaquePointer?](repeating: nil, count: monoSignals.count)
        for (index, signal) in monoSignals.enumerated() where status >= 0 {
            status = swr_alloc_set_opts2(
                &monoResamplers[index],
                &mono,
                AV_SAMPLE_FMT_FLT,
                Int32(signal.sampleRate),
                &inputLayout,
                sampleFormat,
                rate,
                0,
                nil
            )
            if status >= 0, signal.averagesChannels {
                let count = Int(inputLayout.nb_channels)
                let mean = [Double](repeating: 1 / Double(count), count: count)
                status = swr_set_matrix(monoResamplers[index], mean, Int32(count))
            }
            if status >= 0 { status = swr_init(monoResamplers[index]) }
        }
        guard status >= 0 else {
            throw AudioAnalysisError.decodeFailed(path: path, reason: Self.message(for: status))
        }
        guard nativeResampler != nil, !monoResamplers.contains(nil) else {
            throw AudioAnalysisError.libraryFailure(path: path, call: "swr_alloc_set_opts2")
        }
    }

    private func convert(
        _ frame: UnsafeMutablePointer<AVFrame>,
        with resampler: OpaquePointer?,
        channels: Int,
        into buffer: inout [Float],
        _ consume: (UnsafeBufferPointer<Float>) throws -> Void
    ) throws {
        let capacity = Int(swr_get_out_samples(resampler, frame.pointee.nb_samples))
        guard capacity >= 0 else {
            throw AudioAnalysisError.decodeFailed(path: path, reason: Self.message(for: Int32(capacity)))
        }
        guard capacity > 0 else { return }
        guard let data = frame.pointee.extended_data else {
            throw AudioAnalysisError.decodeFailed(path: path, reason: "a decoded block holds no samples")
        }
        if buffer.count < capacity * channels { buffer = [Float](repeating: 0, count: capacity * channels) }
        let converted = buffer.withUnsafeMutableBytes { raw -> Int32 in
            var output: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return withUnsafeMutablePointer(to: &output) { outputs in
                let inputs = UnsafeMutableRawPointer(data).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                return swr_convert(resampler, outputs, Int32(capacity), inputs, frame.pointee.nb_samples)
            }
        }
        guard converted >= 0 else {
            throw AudioAnalysisError.decodeFailed(path: path, reason: Self.message(for: converted))
        }
        guard converted > 0 else { return }
        try buffer.withUnsafeBufferPointer {
            try consume(UnsafeBufferPointer(rebasing: $0[0..<Int(converted) * channels]))
        }
    }

    private func flush(
        _ resampler: OpaquePointer?,
        channels: Int,
        into buffer: inout [Float],
        _ consume: (UnsafeBufferPointer<Float>) throws -> Void
    ) throws {
        let capacity = 8192
        if buffer.count < capacity * channels { buffer = [Float](repeating: 0, count: capacity * channels) }
        while true {
            let converted = buffer.withUnsafeMutableBytes { raw -> Int32 in
                var output: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                return swr_convert(resampler, &output, Int32(capacity), nil, 0)
            }
            guard converted >= 0 else {
                throw AudioAnalysisError.decodeFailed(path: path, reason: Self.message(for: converted))
            }
            guard converted > 0 else { return }
            try buffer.withUnsafeBufferPointer {
                try consume(UnsafeBufferPointer(rebasing: $0[0..<Int(converted) * channels]))
            }
        }
    }

    // MARK: - Helpers

    /// FFmpeg logs decoder warnings to stderr by default; the caller reports errors itself.
    private static let quietFFmpegLogging: Void = av_log_set_level(AV_LOG_QUIET)

    private static func release(
        format: inout UnsafeMutablePointer<AVFormatContext>?,
        codec: inout UnsafeMutablePointer<AVCodecContext>?,
        io: inout UnsafeMutablePointer<AVIOContext>?
    ) {
        avcodec_free_context(&codec)
        avformat_close_input(&format)
        release(io: &io)
    }

    /// Frees custom I/O and its buffer, which FFmpeg may have replaced since it was allocated.
    private static func release(io: inout UnsafeMutablePointer<AVIOContext>?) {
        guard let context = io else { return }
        av_freep(&context.pointee.buffer)
        avio_context_free(&io)
    }

    // MARK: - Custom I/O

    /// The bytes FFmpeg reads from the descriptor at a time: what its own `file:` protocol uses.
    private static let ioBufferSize = 32_768

    /// FFmpeg's read callback: up to `size` bytes of the ``AudioFile`` behind `opaque`.
    private static func readCallback(
        _ opaque: UnsafeMutableRawPointer?,
        _ buffer: UnsafeMutablePointer<UInt8>?,
        _ size: Int32
    )
        -> Int32
    {
        guard let opaque, let buffer, size > 0 else { return vibes_averror(EINVAL) }
        let file = Unmanaged<AudioFile>.fromOpaque(opaque).takeUnretainedValue()
        while true {
            let count = file.withDescriptor { read($0, buffer, Int(size)) }
            if count > 0 { return Int32(count) }
            if count == 0 { return vibes_averror_eof() }
            if errno != EINTR { return vibes_averror(errno) }
        }
    }

    /// FFmpeg's seek callback: `lseek`, or the file's size for `AVSEEK_SIZE`.
    private static func seekCallback(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
        guard let opaque else { return Int64(vibes_averror(EINVAL)) }
        let file = Unmanaged<AudioFile>.fromOpaque(opaque).takeUnretainedValue()
        return file.withDescriptor { descriptor in
            if whence & AVSEEK_SIZE != 0 {
                var status = stat()
                return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : Int64(vibes_averror(errno))
            }
            let position = lseek(descriptor, off_t(offset), whence & ~AVSEEK_FORCE)
            return position >= 0 ? Int64(position) : Int64(vibes_averror(errno))
        }
    }

    private static func tags(of dictionary: OpaquePointer?) -> [String: String] {
        var tags: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            entry = next
            guard let key = next.pointee.key, let value = next.pointee.value else { continue }
            tags[String(cString: key).lowercased()] = String(cString: value)
        }
        return tags
    }

    /// FFmpeg's text for an error code.
    static func message(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
