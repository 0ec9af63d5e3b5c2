#!/usr/bin/env python3
"""Converts musicnn's MSD_musicnn checkpoint for `MusicTagger` and writes the reference outputs.

Not run in CI. Needs TensorFlow with the legacy Keras layers and librosa (see README.md here):

    python3 scripts/tagger/convert_musicnn.py --musicnn DIR

where DIR holds the unpacked `musicnn` 0.1.0 wheel (`pip download --no-deps musicnn==0.1.0`, then
unzip), the directory that contains the `musicnn` package.

It writes, from the repository root:

- `Sources/AudioAnalysis/Tagging/MSD_musicnn/weights.bin`: every tensor the Swift network reads, as
  little-endian float32, one after another; batch normalisation at inference already reduced to a
  scale and a shift per channel (`scale = gamma / sqrt(moving_variance + 0.001)`,
  `shift = beta - moving_mean * scale`), and the one that comes right before a dense layer folded
  into that layer's weights.
- `Sources/AudioAnalysis/Tagging/MSD_musicnn/manifest.json`: the tags, and each tensor's name, shape
  and offset (in floats) in `weights.bin`.
- `Sources/VibesTestSupport/Fixtures/tagger/reference.json`: for each decodable audio fixture, the tag
  probabilities and the penultimate layer (the embedding), averaged over 3-second patches, from
  musicnn's own TensorFlow graph (`models.define_model`, restored as `extractor()` restores it) on
  musicnn's librosa mel spectrogram (`log_mel_patches`). Two things differ from `extractor()`: the
  audio comes from FFmpeg (channels averaged at the file's rate, then resampled to 16 kHz by
  libswresample with its default settings, as the Swift decoder does) instead of `librosa.load`,
  whose soxr resampler the Swift side does not have; and the logarithm does not overflow (see
  `log_mel_patches`).
"""

import argparse
import json
import os
import subprocess
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

MODEL = "MSD_musicnn"
EPSILON = 1e-3  # tf.compat.v1.layers.batch_normalization's default
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL_DIR = os.path.join(ROOT, "Sources", "AudioAnalysis", "Tagging", MODEL)
FIXTURES = os.path.join(ROOT, "Sources", "VibesTestSupport", "Fixtures")
CLIPS = [
    "clip.wav", "clip.flac", "clip-spotify.flac", "clip-alac.m4a", "clip.aiff",
    "clip.mp3", "clip.m4a", "clip.ogg", "clip.opus",
]

# The checkpoint's layers in the order models.build_musicnn creates them.
CONVOLUTIONS = [
    ("timbral74", "conv2d", "batch_normalization_1"),
    ("timbral77", "conv2d_1", "batch_normalization_2"),
    ("temporal128", "conv2d_2", "batch_normalization_3"),
    ("temporal64", "conv2d_3", "batch_normalization_4"),
    ("temporal32", "conv2d_4", "batch_normalization_5"),
    ("midend1", "conv2d_5", "batch_normalization_6"),
    ("midend2", "conv2d_6", "batch_normalization_7"),
    ("midend3", "conv2d_7", "batch_normalization_8"),
]


def batch_norm(reader, name):
    gamma = reader.get_tensor(name + "/gamma").astype(np.float64)
    beta = reader.get_tensor(name + "/beta").astype(np.float64)
    mean = reader.get_tensor(name + "/moving_mean").astype(np.float64)
    variance = reader.get_tensor(name + "/moving_variance").astype(np.float64)
    scale = gamma / np.sqrt(variance + EPSILON)
    return scale, beta - mean * scale


def convert(musicnn_dir):
    import tensorflow as tf

    reader = tf.compat.v1.train.NewCheckpointReader(os.path.join(musicnn_dir, "musicnn", MODEL) + "/")
    tensors = []

    def add(name, array):
        tensors.append((name, np.asarray(array, dtype="<f4")))

    scale, shift = batch_norm(reader, "batch_normalization")
    add("input.scale", scale)
    add("input.shift", shift)
    for name, conv, norm in CONVOLUTIONS:
        kernel = reader.get_tensor(conv + "/kernel")  # [time, width, 1, filters]
        add(name + ".kernel", kernel.reshape(-1, kernel.shape[-1]))  # [(time, width), filters]
        add(name + ".bias", reader.get_tensor(conv + "/bias"))
        scale, shift = batch_norm(reader, norm)
        add(name + ".scale", scale)
        add(name + ".shift", shift)
    # The pooled features' batch norm is affine right before the first dense layer: fold it in.
    scale, shift = batch_norm(reader, "batch_normalization_9")
    kernel = reader.get_tensor("dense/kernel").astype(np.float64)
    add("dense.kernel", kernel * scale[:, None])
    add("dense.bias", reader.get_tensor("dense/bias") + shift @ kernel)
    scale, shift = batch_norm(reader, "batch_normalization_10")
    add("dense.scale", scale)
    add("dense.shift", shift)
    add("output.kernel", reader.get_tensor("dense_1/kernel"))
    add("output.bias", reader.get_tensor("dense_1/bias"))

    sys.path.insert(0, musicnn_dir)
    from musicnn import configuration

    os.makedirs(MODEL_DIR, exist_ok=True)
    manifest = {
        "model": MODEL,
        "source": "musicnn 0.1.0 (PyPI), ISC licence, Music Technology Group, Universitat Pompeu Fabra",
        "training": "Million Song Dataset audio with its Last.fm tags (the 50 most frequent)",
        "sampleRate": configuration.SR,
        "fftSize": configuration.FFT_SIZE,
        "hop": configuration.FFT_HOP,
        "melBands": configuration.N_MELS,
        "patchFrames": 187,
        "tags": configuration.MSD_LABELS,
        "tensors": [],
    }
    offset = 0
    with open(os.path.join(MODEL_DIR, "weights.bin"), "wb") as out:
        for name, array in tensors:
            out.write(array.tobytes())
            manifest["tensors"].append({"name": name, "shape": list(array.shape), "offset": offset})
            offset += array.size
    with open(os.path.join(MODEL_DIR, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=1)
        out.write("\n")
    print(f"{offset} floats ({offset * 4} bytes) in {len(tensors)} tensors")


def ffmpeg_load(path, sr=16000, **_):
    """The Swift decoder's signal: channels averaged at the file's rate, then swresample to `sr`."""
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channels,sample_rate",
         "-of", "csv=p=0", path], check=True, capture_output=True, text=True).stdout.split(",")
    rate, channels = int(probe[0]), int(probe[1])
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "f32le", "-"],
                         check=True, capture_output=True).stdout
    mono = np.frombuffer(raw, dtype="<f4").reshape(-1, channels).mean(axis=1, dtype=np.float32)
    resampled = subprocess.run(
        ["ffmpeg", "-nostdin", "-v", "error", "-f", "f32le", "-ar", str(rate), "-ac", "1", "-i", "-",
         "-ar", str(sr), "-f", "f32le", "-"], input=mono.astype("<f4").tobytes(), check=True,
        capture_output=True).stdout
    return np.frombuffer(resampled, dtype="<f4").copy(), sr


def log_mel_patches(audio, musicnn_config, n_frames):
    """musicnn's `extractor.batch_data` on `audio`, with its logarithm taken in float32.

    `batch_data` rounds the mel spectrogram to float16, as the training data was stored, and then
    takes `log10(10000 x + 1)` in float16 too, where `10000 x` overflows to infinity for any band
    above 6.55: loud music's low bands are. Training read the float16 spectrograms into float64
    before the logarithm (musicnn-training's `get_short_rep`), so this does the same, in float32.
    """
    import librosa

    audio_rep = librosa.feature.melspectrogram(
        y=audio, sr=musicnn_config.SR, hop_length=musicnn_config.FFT_HOP, n_fft=musicnn_config.FFT_SIZE,
        n_mels=musicnn_config.N_MELS).T
    audio_rep = audio_rep.astype(np.float16).astype(np.float32)
    audio_rep = np.log10(10000 * audio_rep + 1)
    starts = range(0, audio_rep.shape[0] - n_frames + 1, n_frames)
    return np.stack([audio_rep[start:start + n_frames] for start in starts])


def references(musicnn_dir):
    sys.path.insert(0, musicnn_dir)
    import tensorflow as tf
    from musicnn import configuration, models

    # As musicnn's `extractor()` builds and restores the graph.
    tf.compat.v1.disable_eager_execution()
    tf.compat.v1.reset_default_graph()
    n_frames = 187
    with tf.name_scope("model"):
        x = tf.compat.v1.placeholder(tf.float32, [None, n_frames, configuration.N_MELS])
        is_training = tf.compat.v1.placeholder(tf.bool)
        outputs = models.define_model(x, is_training, MODEL, len(configuration.MSD_LABELS))
        probabilities = tf.nn.sigmoid(outputs[0])
        penultimate = outputs[-1]
    session = tf.compat.v1.Session()
    tf.compat.v1.train.Saver().restore(session, os.path.join(musicnn_dir, "musicnn", MODEL) + "/")

    clips = {}
    for clip in CLIPS:
        audio, _ = ffmpeg_load(os.path.join(FIXTURES, "audio", clip), sr=configuration.SR)
        patches = log_mel_patches(audio, configuration, n_frames)
        tags, embedding = session.run([probabilities, penultimate], feed_dict={x: patches, is_training: False})
        tags, embedding = tags.mean(axis=0), embedding.mean(axis=0)
        clips[clip] = {
            "patches": int(patches.shape[0]),
            "tags": [round(float(v), 7) for v in tags],
            "embedding": [round(float(v), 6) for v in embedding],
        }
        top = sorted(zip(tags, configuration.MSD_LABELS), reverse=True)[:5]
        print(clip, ", ".join(f"{label} {value:.3f}" for value, label in top))
    out_dir = os.path.join(FIXTURES, "tagger")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "reference.json"), "w") as out:
        json.dump({"model": MODEL, "clips": clips}, out, indent=1)
        out.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--musicnn", required=True, help="the unpacked musicnn 0.1.0 wheel")
    arguments = parser.parse_args()
    convert(os.path.abspath(arguments.musicnn))
    references(os.path.abspath(arguments.musicnn))


if __name__ == "__main__":
    main()
