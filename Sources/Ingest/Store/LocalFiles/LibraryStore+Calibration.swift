import Features
import Foundation
import GRDB

/// How local analysis agrees with Spotify's values on the tracks that have both, per feature,
/// before and after calibration.
public struct CalibrationReport: Hashable, Sendable, Codable {
    /// One feature's agreement.
    public struct Field: Hashable, Sendable, Codable {
        public var feature: AudioFeature
        /// Tracks with both a local value and a reference value of this feature.
        public var sharedTracks: Int
        /// The raw local values against the reference (`nil` with fewer than 2 pairs).
        public var raw: FeatureAgreement?
        /// Calibrated values against the reference, cross-validated (`nil` below the minimum).
        public var calibrated: FeatureAgreement?
        /// Whether a calibration is stored and applied when the matrix is built.
        public var isApplied: Bool

        enum CodingKeys: String, CodingKey {
            case feature, raw, calibrated
            case sharedTracks = "shared_tracks"
            case isApplied = "applied"
        }
    }

    /// The fewest shared tracks a field needs to be calibrated.
    public var minimumSharedTracks: Int
    public var fields: [Field]
    /// Tempo within 4 % of the reference, a doubled or halved tempo counting as agreement; with the number of pairs.
    public var tempoAgreement: Double?
    /// Key and mode equal to the reference's.
    public var keyAgreement: Double?
    /// Tracks with both a local and a reference row.
    public var sharedTracks: Int

    enum CodingKeys: String, CodingKey {
        case fields
        case minimumSharedTracks = "minimum_shared_tracks"
        case tempoAgreement = "tempo_agreement"
        case keyAgreement = "key_agreement"
        case sharedTracks = "shared_tracks"
    }
}

extension LibraryStore {
    /// The features local analysis estimates on a scale of its own, which calibration maps onto
    /// Spotify's. Tempo, key, mode and time signature are measured on Spotify's own scale.
    public static let calibratedFeatures: [AudioFeature] = [
        .loudness, .energy, .danceability, .valence, .acousticness, .instrumentalness, .speechiness,
    ]

    /// The fewest tracks with both values that a calibration is fitted from; below it the raw
    /// estimates are used.
    public static let minimumCalibrationTracks = 50

    /// Measures the agreement of local values with reference values, without changing anything.
    public func calibrationReport() throws -> CalibrationReport {
        try read { db in try Self.calibration(in: db).report }
    }

    /// Fits a calibration for each feature with enough shared tracks, stores it (replacing the
    /// previous one) and removes those that no longer have enough; returns the agreement.
    @discardableResult
    public func calibrateLocalFeatures(at date: Date = Date()) throws -> CalibrationReport {
        try write { db in
            let (report, maps) = try Self.calibration(in: db)
            try db.execute(sql: "DELETE FROM feature_calibrations WHERE source_kind = 'local'")
            let encoder = JSONEncoder()
            for (feature, map) in maps.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let field = report.fields.first { $0.feature == feature }
                try db.execute(
                    sql: """
                        INSERT INTO feature_calibrations (source_kind, feature, knots, shared_tracks, fitted_at)
                        VALUES ('local', ?, ?, ?, ?)
                        """,
                    arguments: [
                        feature.rawValue, String(decoding: try encoder.encode(map.knots), as: UTF8.self),
                        field?.sharedTracks ?? 0, date.formatted(.iso8601),
                    ]
                )
            }
            return report
        }
    }

    /// The stored calibrations of local values, by feature.
    static func localCalibrations(in db: Database) throws -> [AudioFeature: FeatureCalibration] {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT feature, knots FROM feature_calibrations WHERE source_kind = 'local'"
        )
        var maps: [AudioFeature: FeatureCalibration] = [:]
        let decoder = JSONDecoder()
        for row in rows {
            guard let feature = AudioFeature(rawValue: row[0]),
                let knots = try? decoder.decode([FeatureCalibration.Knot].self, from: Data((row[1] as String).utf8))
            else { continue }
            maps[feature] = FeatureCalibration(knots: knots)
        }
        return maps
    }

    static func calibration(
        in db: Database
    ) throws -> (report: CalibrationReport, maps: [AudioFeature: FeatureCalibration]) {
        let columns = AudioFeature.allCases.map(\.rawValue)
        let localColumns = columns.map { "l.\($0)" }.joined(separator: ", ")
        let referenceColumns = columns.map { "r.\($0)" }.joined(separator: ", ")
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT \(localColumns), \(referenceColumns)
                FROM all_features l
                JOIN (SELECT * FROM (
                        SELECT a.*, row_number() OVER (PARTITION BY track_id ORDER BY priority DESC, fetched_at DESC) AS rank
                        FROM all_features a WHERE source NOT LIKE 'local:%')
                      WHERE rank = 1) r ON r.track_id = l.track_id
                WHERE l.source LIKE 'local:%'
                ORDER BY l.track_id
                """
        )
        let count = AudioFeature.allCases.count
        func value(_ row: Row, _ feature: AudioFeature, reference: Bool) -> Double? {
            let index = AudioFeature.allCases.firstIndex(of: feature)! + (reference ? count : 0)
            guard let value = row[index] as Double?, !feature.isMissingSentinel(value) else { return nil }
            return value
        }
        var fields: [CalibrationReport.Field] = []
        var maps: [AudioFeature: FeatureCalibration] = [:]
        for feature in calibratedFeatures {
            var estimates: [Double] = []
            var references: [Double] = []
            for row in rows {
                guard let local = value(row, feature, reference: false),
                    let reference = value(row, feature, reference: true)
                else { continue }
                estimates.append(local)
                references.append(reference)
            }
            var field = CalibrationReport.Field(
                feature: feature,
                sharedTracks: estimates.count,
                raw: nil,
                calibrated: nil,
                isApplied: false
            )
            if estimates.count >= 2 { field.raw = FeatureAgreement(values: estimates, references: references) }
            if estimates.count >= minimumCalibrationTracks {
                field.calibrated = FeatureAgreement.crossValidated(estimates: estimates, references: references)
                maps[feature] = FeatureCalibration.fit(estimates: estimates, references: references)
                field.isApplied = true
            }
            fields.append(field)
        }
        var tempoPairs = 0
        var tempoHits = 0
        var keyPairs = 0
        var keyHits = 0
        for row in rows {
            if let local = value(row, .tempo, reference: false), let reference = value(row, .tempo, reference: true) {
                tempoPairs += 1
                if [1.0, 2.0, 0.5].contains(where: { abs(local - reference * $0) <= 0.04 * reference * $0 }) {
                    tempoHits += 1
                }
            }
            if let key = value(row, .key, reference: false), let referenceKey = value(row, .key, reference: true),
                let mode = value(row, .mode, reference: false), let referenceMode = value(row, .mode, reference: true)
            {
                keyPairs += 1
                if key == referenceKey, mode == referenceMode { keyHits += 1 }
            }
        }
        let report = CalibrationReport(
            minimumSharedTracks: minimumCalibrationTracks,
            fields: fields,
            tempoAgreement: tempoPairs > 0 ? Double(tempoHits) / Double(tempoPairs) : nil,
            keyAgreement: keyPairs > 0 ? Double(keyHits) / Double(keyPairs) : nil,
            sharedTracks: rows.count
        )
        return (report, maps)
    }
}
