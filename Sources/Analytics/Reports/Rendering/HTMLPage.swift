import Features

/// The page around the report's sections: document head, inline styles, colour palettes.
package struct HTMLPage {
    package var body = ""

    package init() {}

    package mutating func add(_ html: String) { body += html + "\n" }

    /// The CSS class that colours a mood quadrant.
    package static func moodClass(_ mood: Mood) -> String {
        switch mood {
        case .happy: "happy"
        case .calm: "calm"
        case .sad: "sad"
        case .tense: "tense"
        }
    }

    /// The footer of the mood report, as HTML.
    package static let moodReportFooter =
        "Made by vibes-analyze from the library store. Audio features are Spotify's; moods are estimates from valence and energy."

    /// The whole page: `body` between the shared head (with ``css`` and `extraCSS`) and `footer`,
    /// which is HTML (escape any text in it).
    package func document(title: String, footer: String = HTMLPage.moodReportFooter, extraCSS: String = "") -> String {
        """
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <meta name="color-scheme" content="light dark"/>
        <title>\(SVGChart.escape(title))</title>
        <style>
        \(HTMLPage.css)\(extraCSS.isEmpty ? "" : "\n" + extraCSS)
        </style>
        </head>
        <body>
        <main>
        \(body)<footer><p>\(footer)</p></footer>
        </main>
        </body>
        </html>

        """
    }
}
