#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

/// `AVERROR(EAGAIN)`: the codec wants more input. Swift does not import function-like macros.
static inline int vibes_averror_eagain(void) { return AVERROR(EAGAIN); }

/// `AVERROR_EOF`: the end of the stream.
static inline int vibes_averror_eof(void) { return AVERROR_EOF; }

/// `AV_NOPTS_VALUE`, the timestamp FFmpeg uses for "unknown".
static inline int64_t vibes_av_nopts_value(void) { return AV_NOPTS_VALUE; }

/// `AVERROR(code)`: FFmpeg's error for the `errno` value `code`.
static inline int vibes_averror(int code) { return AVERROR(code); }
