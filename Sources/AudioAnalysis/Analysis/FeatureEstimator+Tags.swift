import Features
import Foundation

extension FeatureEstimator {
    /// Confidence of an estimate made with the tagger, by feature: above the signals' alone, and
    /// still below a measurement's.
    static let heardConfidence: [AudioFeature: Double] = [
        .energy: 0.6, .danceability: 0.5, .valence: 0.35, .acousticness: 0.6, .instrumentalness: 0.5,
        .speechiness: 0.4,
    ]

    /// The tags of a voice (MSD has no tag for speech).
    static let vocalTags = ["female vocalists", "male vocalists", "female vocalist", "Hip-Hop", "rnb", "soul"]

    /// How much the tags move each feature, and the tags' typical value (where they move it
    /// neither way): the middle of what the MSD tags' profiles give on real music.
    private static let tagWeight = (energy: 1.0, danceability: 1.0, valence: 1.0, acousticness: 2.5)
    private static let neutral = (energy: 0.55, danceability: 0.62, valence: 0.38, acousticness: 0.35)

    /// The estimates from what the tagger heard, with the signals' own (`signals`).
    ///
    /// The tags' ``TagProfile``s are averaged, each weighted by its tag's probability squared
    /// (the MSD model spreads some probability over every tag; squaring lets the tags it is sure
    /// of lead), into what music with these tags measures on Spotify's scale. That is evidence
    /// added to the signals' estimate in log-odds, as two independent witnesses combine:
    /// `σ(logit(signals) + w · (logit(heard) − logit(neutral)))`, with `w` 2.5 for acousticness,
    /// which the spectrum misjudges on dense mixes of any instrument and on clean synthesisers,
    /// and 1 for energy, danceability and valence, which the signals measure well (loudness,
    /// onsets, beat regularity). Valence also gains 2 · (happy − sad).
    ///
    /// Instrumentalness is σ(4 · (instrumental − voice) + 3 · (signals − ½)), with voice the
    /// strongest of ``vocalTags``; speechiness is the signals' speech, lowered as much as the
    /// tagger hears an instrumental.
    static func estimate(heard tags: AudioTagProbabilities, signals: Estimates) -> Estimates {
        var weight = 0.0
        var sum = TagProfile(energy: 0, danceability: 0, valence: 0, acousticness: 0)
        for (tag, profile) in TagProfile.byTag {
            let w = tags[tag] * tags[tag]
            weight += w
            sum.energy += w * profile.energy
            sum.danceability += w * profile.danceability
            sum.valence += w * profile.valence
            sum.acousticness += w * profile.acousticness
        }
        guard weight > 0 else { return signals }
        let heard = TagProfile(
            energy: sum.energy / weight,
            danceability: sum.danceability / weight,
            valence: sum.valence / weight,
            acousticness: sum.acousticness / weight
        )
        /// The signals' estimate moved by the tags' evidence, in log-odds.
        func combined(_ signal: Double, _ heard: Double, _ tagWeight: Double, _ neutral: Double) -> Double {
            logit(signal) + tagWeight * (logit(heard) - logit(neutral))
        }
        let voice = vocalTags.map { tags[$0] }.max() ?? 0
        let instrumental = tags["instrumental"]
        let energy = combined(signals.energy, heard.energy, tagWeight.energy, neutral.energy)
        let danceability = combined(
            signals.danceability,
            heard.danceability,
            tagWeight.danceability,
            neutral.danceability
        )
        let valence = combined(signals.valence, heard.valence, tagWeight.valence, neutral.valence)
        let acousticness = combined(
            signals.acousticness,
            heard.acousticness,
            tagWeight.acousticness,
            neutral.acousticness
        )
        return Estimates(
            energy: sigmoid(energy),
            danceability: sigmoid(danceability),
            valence: sigmoid(valence + 2 * (tags["happy"] - tags["sad"])),
            acousticness: sigmoid(acousticness),
            instrumentalness: sigmoid(4 * (instrumental - voice) + 3 * (signals.instrumentalness - 0.5)),
            speechiness: clamp(0.03 + (signals.speechiness - 0.03) * (1 - instrumental))
        )
    }

    /// log(p / (1 − p)), with `p` kept within 0.01 and 0.99 so that a signal estimate at 0 or 1
    /// can still be moved.
    static func logit(_ p: Double) -> Double {
        let p = min(0.99, max(0.01, p))
        return log(p / (1 - p))
    }
}
