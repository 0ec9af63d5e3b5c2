import ArgumentParser
import Foundation

/// The options of `vibes-analyze analyze`, which `vibes-analyze-audio` carries out.
package struct AnalyzeOptions: ParsableArguments {
    package init() {}

    @Option(help: "Files analysed at once. Defaults to the number of cores.")
    package var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Analyse every file again, even if unchanged.")
    package var force = false

    @Argument(help: "Audio files, or folders to search recursively.", completion: .file())
    package var paths: [String] = []

    package func validate() throws {
        if paths.isEmpty { throw ValidationError("Please name at least one audio file or folder.") }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1 (got \(jobs)).") }
    }

    /// What `analyze --help` says, shared by both executables.
    package static let abstract = "Analyse your audio files into features: tempo, key, loudness, energy, …"

    package static let discussion = """
        Decodes each file (MP3, AAC/M4A, ALAC, FLAC, WAV, AIFF, Ogg Vorbis, Opus, …) and measures \
        tempo, key and mode, loudness (EBU R128; a mono file counts as dual mono, 3 dB above the \
        same signal taken as single mono, as ITU-R BS.1770 asks for mono on two speakers) and duration. \
        A trained music tagger (musicnn's MSD model) hears each file too: its surest tags are stored \
        as the track's audio-tag tags, and energy, danceability, valence, acousticness, \
        instrumentalness and speechiness are estimated from what it heard and the measured sound; \
        liveness is left out. Every value is stored with its provenance (measured or estimated, and \
        the analyser's version) and a confidence.

        A file is matched to a library track by its ISRC tag, then a Spotify link in its tags, then \
        artist and title with a duration within 2 s; otherwise it becomes a track of its own, which \
        playlists export to M3U as its file path. Values from Spotify or ReccoBeats take precedence \
        over local ones (`features precedence`). Once 50 or more tracks have both, local estimates \
        are calibrated to your Spotify scale; `features status` shows the agreement.

        Files already analysed (same path, size and modification time, or the same content under \
        another name) are skipped unless --force is given. One file's failure is reported and never \
        stops the others; the exit status is 1 if any file failed. Ctrl-C keeps every finished file.

        The analysis runs in a companion program, vibes-analyze-audio, installed beside \
        vibes-analyze: it links FFmpeg and aubio, which every other command can then start without.

        Example: vibes-analyze analyze ~/Music --jobs 2
        """
}
