// The mood report's sections: their script and styles, appended to app.js and app.css.

extension WebApp {
    static let reportStyles = """
        .report-part { margin: 1rem 0; }
        .histogram { display: flex; align-items: flex-end; gap: 2px; height: 3rem; margin: .2rem 0 .6rem; }
        .histogram span { flex: 1 1 0; background: #3b82f6; min-height: 1px; border-radius: 2px 2px 0 0; }
        .hbar { display: grid; grid-template-columns: minmax(4rem, max-content) 1fr max-content; gap: .2rem .6rem; align-items: center; }
        .hbar .fill { height: .6rem; background: #8883; border-radius: .3rem; overflow: hidden; }
        .hbar .fill span { display: block; height: 100%; background: #17bebb; }
        .features { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: .5rem 1rem; }
        canvas.map { width: 100%; max-width: 32rem; aspect-ratio: 1; border: 1px solid #8884; }
        .legend span { margin-right: .8rem; white-space: nowrap; }
        """

    static let reportScript = """
        (() => {
          // The mood report of the library, section by section, from GET /api/report.
          const fixed = (value, digits) => value == null ? "–" : Number(value).toFixed(digits);
          const pct = share => share == null ? "–" : Math.round(share * 100) + "%";
          const hours = ms => (ms / 3600000).toFixed(1) + " h";
          const ref = t => (t.artists && t.artists.length ? t.artists.join(", ") + " – " : "") + t.name;
          function part(id, title, ...children) {
            return el("section", { class: "report-part", id: "report-" + id, "aria-labelledby": "report-" + id + "-title" },
              el("h3", { id: "report-" + id + "-title" }, title), ...children);
          }
          function bars(rows, label) {
            const max = Math.max(1, ...rows.map(r => r.value));
            const grid = el("div", { class: "hbar", role: "list", "aria-label": label });
            for (const row of rows) {
              const fill = el("span", {});
              fill.style.width = (row.value * 100 / max) + "%";
              grid.append(el("span", { role: "listitem" }, row.label), el("div", { class: "fill" }, fill), el("span", { class: "num" }, row.text));
            }
            return grid;
          }
          function overview(o) {
            const list = el("dl", {});
            const rows = [["Tracks", o.tracks], ["With audio features", o.tracks_with_features + " (" + percent(o.tracks_with_features, o.tracks) + ")"],
              ["Artists", o.artists], ["Playlists", o.playlists], ["Saved tracks", o.saved_tracks], ["Plays", o.plays]];
            for (const [name, value] of rows) list.append(el("dt", {}, name), el("dd", {}, String(value)));
            const coverage = bars(o.coverage.map(c => ({ label: c.feature, value: c.tracks, text: percent(c.tracks, o.tracks) })), "Feature coverage");
            return part("overview", "Overview", list, el("h4", {}, "Feature coverage"), coverage);
          }
          function features(list) {
            const grid = el("div", { class: "features" });
            for (const f of list) {
              const max = Math.max(1, ...f.bins.map(b => b.count));
              const histogram = el("div", { class: "histogram", role: "img",
                "aria-label": f.feature + " histogram: " + f.bins.map(b => b.count).join(", ") });
              for (const bin of f.bins) {
                const bar = el("span", { title: fixed(bin.lower, 2) + "–" + fixed(bin.upper, 2) + ": " + bin.count });
                bar.style.height = (bin.count * 100 / max) + "%";
                histogram.append(bar);
              }
              grid.append(el("div", {}, el("strong", {}, f.feature), " (" + f.unit + ") mean " + fixed(f.mean, 2) +
                ", median " + fixed(f.median, 2), histogram));
            }
            return part("features", "Feature distributions", grid);
          }
          function moodMap(m) {
            const quadrants = bars(m.quadrants.map(q => ({ label: q.mood, value: q.tracks, text: pct(q.share) })), "Mood quadrants");
            const soft = m.soft_moods;
            return part("moods", "Moods", el("p", {}, m.tracks + " tracks with valence and energy."), quadrants,
              el("p", {}, "Soft moods: happy " + pct(soft.happy) + ", sad " + pct(soft.sad) + ", angry " + pct(soft.angry) + ", chill " + pct(soft.chill) + "."));
          }
          function vibes(section, hint) {
            if (!section) return part("vibes", "Vibes", el("p", {}, hint));
            const list = el("ol", { class: "report-vibes" });
            for (const v of section.vibes) {
              const standout = v.profile.slice().sort((a, b) => Math.abs(b.z_score) - Math.abs(a.z_score)).slice(0, 3)
                .map(p => p.feature + " " + (p.z_score >= 0 ? "+" : "") + p.z_score.toFixed(1) + "σ").join(", ");
              list.append(el("li", {}, el("strong", {}, v.name), " · " + v.mood + " · " + v.size + " tracks (" + pct(v.share) + ")" +
                (v.listened_share == null ? "" : ", " + pct(v.listened_share) + " of listening"),
                el("div", { class: "why" }, "Stands out: " + standout),
                el("div", { class: "why" }, "Top artists: " + v.top_artists.map(a => a.artist).join(", ")),
                el("div", { class: "why" }, "Top genres: " + (v.top_genres ? v.top_genres.map(g => g.genre).join(", ") : "none")),
                el("div", { class: "why" }, "Examples: " + v.representatives.map(ref).join("; "))));
            }
            return part("vibes", "Vibes", el("p", {}, "Run " + section.run_id + ": " + section.tracks + " tracks over " +
              section.features.join(", ") + " (" + section.scaling + ")."), list);
          }
          function map(m) {
            if (!m) return part("map", "Library map", el("p", {}, "Too few tracks for a map."));
            const canvas = el("canvas", { class: "map", width: "480", height: "480", role: "img",
              "aria-label": "The library's " + m.track_count + " tracks on its first two principal components" });
            const context = canvas.getContext("2d");
            const xs = m.points.map(p => p.x), ys = m.points.map(p => p.y);
            const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
            for (const p of m.points) {
              context.fillStyle = colours[p.group % colours.length];
              context.fillRect(8 + (p.x - x0) / ((x1 - x0) || 1) * 462, 470 - (p.y - y0) / ((y1 - y0) || 1) * 462, 3, 3);
            }
            const legend = el("p", { class: "legend" }, ...m.groups.map((name, index) => {
              const swatch = el("span", { class: "swatch", "aria-hidden": "true" });
              swatch.style.background = colours[index % colours.length];
              return el("span", {}, swatch, name);
            }));
            return part("map", "Library map", el("p", {}, m.basis + "; PC1 and PC2 explain " +
              pct(m.explained_variance_ratios[0]) + " and " + pct(m.explained_variance_ratios[1]) + "."), canvas, legend);
          }
          function listening(l) {
            if (!l) return part("listening", "Listening", el("p", {}, "No listening history imported."));
            const bucket = b => ({ label: b.label, value: b.ms_played, text: hours(b.ms_played) + (b.energy == null ? "" : " · energy " + fixed(b.energy, 2)) });
            return part("listening", "Listening", el("p", {}, l.plays + " plays, " + hours(l.ms_played) + " from " + l.first_play.slice(0, 10) +
              " to " + l.last_play.slice(0, 10) + (l.valence == null ? "" : "; mean valence " + fixed(l.valence, 2) + ", energy " + fixed(l.energy, 2)) + "."),
              el("h4", {}, "By month"), bars(l.by_month.map(bucket), "Listening by month"),
              el("h4", {}, "By weekday"), bars(l.by_weekday.map(bucket), "Listening by weekday"),
              el("h4", {}, "By hour"), bars(l.by_hour.map(bucket), "Listening by hour"),
              l.vibes.length ? el("h4", {}, "By vibe") : "",
              l.vibes.length ? bars(l.vibes.map(v => ({ label: v.name, value: v.listened_share, text: pct(v.listened_share) + " vs " + pct(v.library_share) + " of the library" })), "Listening by vibe") : "");
          }
          function outliers(o) {
            const rows = o.tracks.map(t => el("tr", {}, el("td", {}, ref(t.track)), el("td", {}, t.vibe || ""),
              el("td", { class: "num" }, fixed(t.distance, 2)),
              el("td", {}, t.stands_out.map(s => s.feature + " " + (s.z_score >= 0 ? "+" : "") + s.z_score.toFixed(1) + "σ").join(", "))));
            return part("outliers", "Outliers", el("p", {}, "The tracks least like any vibe (" + o.basis + ")."),
              el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "Track"), el("th", {}, "Vibe"), el("th", {}, "Distance"),
                el("th", {}, "Stands out"))), el("tbody", {}, ...rows)));
          }
          async function showReport() {
            const target = document.getElementById("report-body");
            const button = document.getElementById("report-load");
            button.disabled = true;
            target.textContent = "Computing the report…";
            try {
              // Listening is bucketed by the hours of the browser's zone (the server's, when it does
              // not know that zone).
              const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
              const r = (await (zone ? api("/api/report?time_zone=" + encodeURIComponent(zone)) : Promise.reject())
                .catch(() => api("/api/report"))).report;
              target.replaceChildren(overview(r.overview), features(r.features), moodMap(r.mood_map),
                vibes(r.vibes, "No clustering run yet, so this report has no vibes: re-cluster in Vibes."),
                map(r.map), listening(r.listening), outliers(r.outliers));
            } catch (error) { target.textContent = "Could not compute the report: " + error.message; }
            button.disabled = false;
          }
          document.getElementById("report-load").addEventListener("click", showReport);
          const onHash = () => { if (location.hash === "#report") showReport(); };
          window.addEventListener("hashchange", onHash);
          onHash();
        })();
        """
}
