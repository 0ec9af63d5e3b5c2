import Foundation

extension ImportFormat {
    /// Detects the format of a file from its header (CSV) or top-level shape (JSON).
    static func detect(path: String, bytes: [UInt8]) throws -> ImportFormat {
        let firstByte = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        if firstByte == UInt8(ascii: "[") || firstByte == UInt8(ascii: "{") {
            // Checked first so that a truncated or broken file is reported at its place, not as
            // an unknown format (Foundation's parser says neither where nor what).
            do {
                try JSONSyntax.check(bytes)
            } catch {
                throw ImportError(file: path, line: error.line, column: error.column, message: error.message)
            }
            let data = Data(bytes)
            guard let format = JSONImporter.detectFormat(data) else {
                if let kind = JSONImporter.unimportableKind(data) {
                    throw ImportError(
                        file: path,
                        message: "this is \(kind), which holds no tracks, plays or playlists to import"
                    )
                }
                throw ImportError(
                    file: path,
                    message:
                        "this JSON is not a format vibes-analyze knows; expected StreamingHistory*.json, Streaming_History_Audio_*.json/endsong_*.json, YourLibrary.json, Playlist*.json, Spotify Web API JSON, or a ReccoBeats audio-features response (see --format)"
                )
            }
            return format
        }
        return try detect(path: path, reader: CSVReader(bytes: bytes))
    }

    /// Detects the format of a CSV from its header.
    static func detect(path: String, reader: CSVReader) throws -> ImportFormat {
        var reader = reader
        var record = CSVReader.Record(line: 1, lineStart: 0)
        guard (try? reader.next(into: &record)) == true else {
            throw ImportError(file: path, line: 1, message: "the file is empty; expected a CSV header or JSON")
        }
        let header = (0..<record.count).map { reader.string(record, $0) }
        if TabularImporter.isExportifyHeader(header) { return .exportify }
        if TabularImporter.featureColumnCount(header) >= 3 { return .featuresCSV }
        throw ImportError(
            file: path,
            line: 1,
            message:
                "cannot tell the format from the header (\(header.prefix(8).joined(separator: ", "))…); expected an audio-feature CSV with columns such as danceability, energy, valence, or an Exportify export with Track URI and Artist Name(s); pass --format to choose"
        )
    }
}

extension TextStream {
    /// The first byte of the text that is not white space, or `nil` for an empty file; the
    /// stream itself is not advanced.
    func firstTextByte() throws -> UInt8? {
        var stream = self
        var chunk: [UInt8] = []
        while try stream.append(to: &chunk) {
            if let byte = chunk.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) {
                return byte
            }
            chunk.removeAll(keepingCapacity: true)
        }
        return nil
    }
}

extension ImportFile {
    /// The whole text of the file as UTF-8, for JSON.
    func decodedText() throws -> [UInt8] {
        let bytes = try readAll()
        do {
            return try TextDecoding.utf8Bytes(bytes).bytes
        } catch {
            throw ImportError(file: path, line: error.line, column: error.column, message: error.message)
        }
    }
}
