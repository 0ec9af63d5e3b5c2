import FlyingFox
import Foundation

/// The web app: one page, its script and its styles, embedded in the binary. It loads nothing
/// from elsewhere, reads the library only through the JSON API, and works by keyboard and at
/// phone width.
enum WebApp {
    enum Asset {
        case page, script, styles
    }

    static func response(for asset: Asset) -> HTTPResponse {
        let (type, text) =
            switch asset {
            case .page: ("text/html; charset=utf-8", page)
            case .script:
                (
                    "text/javascript; charset=utf-8",
                    [script, explorerScript, vibesScript, moodPathScript, reportScript].joined(separator: "\n")
                )
            case .styles:
                (
                    "text/css; charset=utf-8",
                    [styles, explorerStyles, vibesStyles, moodPathStyles, reportStyles].joined(separator: "\n")
                )
            }
        return HTTPResponse(
            statusCode: .ok,
            headers: VibesServer.commonHeaders(contentType: type),
            body: Data(text.utf8)
        )
    }

    static let page = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>vibes-analyze</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
        <h1>vibes-analyze</h1>
        <nav aria-label="Sections">
        <a href="#library">Library</a>
        <a href="#playlists">Playlists</a>
        <a href="#vibes">Vibes</a>
        <a href="#mood-path">Mood path</a>
        <a href="#report">Report</a>
        <a href="#explorer">Explorer</a>
        </nav>
        </header>
        <main id="main" tabindex="-1">
        <section id="library" aria-labelledby="library-title">
        <h2 id="library-title">Library</h2>
        <div id="library-body" aria-live="polite">Loading…</div>
        </section>
        <section id="playlists" aria-labelledby="playlists-title">
        <h2 id="playlists-title">Playlists</h2>
        <ul id="playlist-list" aria-live="polite"><li>Loading…</li></ul>
        <div id="playlist-detail" aria-live="polite"></div>
        <div id="playlist-order"></div>
        </section>
        <section id="vibes" aria-labelledby="vibes-title">
        <h2 id="vibes-title">Vibes</h2>
        <p id="vibes-run" class="run-info" aria-live="polite">Loading…</p>
        <div id="vibes-controls"></div>
        <ul id="vibe-list"></ul>
        <div id="vibe-detail" aria-live="polite"></div>
        </section>
        <section id="mood-path" aria-labelledby="mood-path-title">
        <h2 id="mood-path-title">Mood path</h2>
        <div id="path-body">Loading…</div>
        </section>
        <section id="report" aria-labelledby="report-title">
        <h2 id="report-title">Report</h2>
        <button type="button" id="report-load">Show the mood report</button>
        <div id="report-body" aria-live="polite"></div>
        </section>
        <section id="more" aria-labelledby="more-title" hidden>
        <h2 id="more-title" tabindex="-1">More like this</h2>
        <div id="more-body" aria-live="polite"></div>
        </section>
        \(explorerSection)
        </main>
        </body>
        </html>
        """

    static let styles = """
        :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.4; }
        body { margin: 0 auto; max-width: 60rem; padding: 0 1rem 2rem; }
        header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 1rem; }
        nav a { margin-right: 1rem; }
        .skip { position: absolute; left: -100vw; }
        .skip:focus { position: static; }
        a:focus, button:focus { outline: 3px solid #3b82f6; outline-offset: 2px; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
        dd { margin: 0; }
        ul { padding-left: 0; list-style: none; }
        li { margin: .5rem 0; }
        button.playlist { font: inherit; text-align: left; width: 100%; padding: .5rem; cursor: pointer;
          border: 1px solid #8884; border-radius: .4rem; background: none; color: inherit; }
        .bar { display: flex; height: .6rem; border-radius: .3rem; overflow: hidden; background: #8883; margin-top: .3rem; }
        .bar span { display: block; height: 100%; }
        .vibes { font-size: .9rem; opacity: .85; }
        table { border-collapse: collapse; width: 100%; }
        td, th { text-align: left; padding: .2rem .4rem; border-bottom: 1px solid #8883; }
        @media (max-width: 30rem) { td.album, th.album { display: none; } }
        button.more-like { font: inherit; font-size: .85rem; padding: .1rem .4rem; cursor: pointer; }
        ol.recommendations { padding-left: 1.5rem; }
        .sim { font-variant-numeric: tabular-nums; opacity: .85; }
        .why { font-size: .9rem; opacity: .85; }
        form.save-playlist { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
        form.save-playlist input { font: inherit; flex: 1 1 12rem; }
        """

    static let script = """
        "use strict";
        const colours = ["#e4572e", "#17bebb", "#ffc914", "#76b041", "#7b5ea7", "#2e86ab", "#f18f01", "#c73e1d"];
        function el(tag, attributes, ...children) {
          const node = document.createElement(tag);
          for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
          for (const child of children) node.append(child);
          return node;
        }
        // While any request is under way the page is marked aria-busy, so a screen reader waits for
        // the views to settle before reading them out.
        let pending = 0;
        async function busy(work) {
          if (pending++ === 0) document.getElementById("main").setAttribute("aria-busy", "true");
          try { return await work(); } finally {
            if (--pending === 0) document.getElementById("main").removeAttribute("aria-busy");
          }
        }
        function api(path) {
          return busy(async () => {
            const response = await fetch(path, { headers: { "Accept": "application/json" } });
            const body = await response.json();
            if (!response.ok) throw new Error(body.error ? body.error.message : response.statusText);
            return body;
          });
        }
        let csrfToken = null;
        function post(path, value) {
          return busy(async () => {
            if (!csrfToken) csrfToken = (await api("/api/session")).csrf_token;
            const response = await fetch(path, { method: "POST", body: JSON.stringify(value),
              headers: { "Accept": "application/json", "Content-Type": "application/json", "X-CSRF-Token": csrfToken } });
            const body = await response.json();
            if (!response.ok) throw new Error(body.error ? body.error.message : response.statusText);
            return body;
          });
        }
        function percent(part, whole) { return whole ? Math.round(part * 100 / whole) + "%" : "–"; }
        function vibeBar(vibes) {
          const total = vibes.reduce((sum, vibe) => sum + vibe.tracks, 0);
          const bar = el("div", { class: "bar", role: "img",
            "aria-label": vibes.map(v => v.name + " " + percent(v.tracks, total)).join(", ") || "no vibes" });
          for (const vibe of vibes) {
            const part = el("span", { title: vibe.name });
            part.style.width = (vibe.tracks * 100 / total) + "%";
            part.style.background = colours[(vibe.number - 1) % colours.length];
            bar.append(part);
          }
          return bar;
        }
        function vibeText(vibes) {
          const total = vibes.reduce((sum, vibe) => sum + vibe.tracks, 0);
          return vibes.length ? vibes.map(v => v.name + " " + percent(v.tracks, total)).join(", ") : "no vibes yet";
        }
        async function showLibrary() {
          const target = document.getElementById("library-body");
          try {
            const s = await api("/api/library");
            const list = el("dl", {});
            const rows = [["Tracks", s.tracks], ["With audio features", s.tracks_with_features + " (" + percent(s.tracks_with_features, s.tracks) + ")"],
              ["Artists", s.artists], ["Playlists", s.playlists], ["Saved tracks", s.saved_tracks], ["Plays", s.plays]];
            for (const source of s.sources || []) rows.push(["Source " + source.source, source.tracks + " tracks (preferred for " + source.preferred + ")"]);
            for (const [name, value] of rows) list.append(el("dt", {}, name), el("dd", {}, String(value)));
            target.replaceChildren(list);
          } catch (error) { target.textContent = "Could not load the library: " + error.message; }
        }
        async function showPlaylist(id) {
          const target = document.getElementById("playlist-detail");
          try {
            const p = await api("/api/playlists/" + encodeURIComponent(id));
            const table = el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "Track"),
              el("th", { class: "album" }, "Album"), el("th", {}, "Vibe"))));
            const body = el("tbody", {});
            for (const entry of p.entries) {
              const title = (entry.track.artists.length ? entry.track.artists.join(", ") + " – " : "") + entry.track.name;
              const cell = el("td", {}, title);
              if (entry.track.spotify_id && entry.has_features) {
                titles.set(entry.track.spotify_id, title);
                const more = el("button", { class: "more-like", type: "button", "aria-label": "More like " + title }, "More like this");
                more.addEventListener("click", () => { location.hash = "playlist/" + id + "/more/" + entry.track.spotify_id; });
                cell.append(" ", more);
              }
              const play = el("button", { class: "play", type: "button", "aria-label": "Play " + title }, "Play");
              play.addEventListener("click", () => {
                const audio = el("audio", { controls: "", autoplay: "", src: "/api/tracks/" + entry.track.id + "/audio" });
                audio.addEventListener("error", () => { audio.replaceWith("no local file"); });
                play.replaceWith(audio);
              });
              cell.append(" ", play);
              body.append(el("tr", {}, el("td", {}, String(entry.position + 1)), cell,
                el("td", { class: "album" }, entry.track.album || ""),
                el("td", {}, entry.vibe == null ? (entry.has_features ? "" : "no features") : String(entry.vibe))));
            }
            table.append(body);
            const title = el("h3", { tabindex: "-1" }, p.playlist.name);
            target.replaceChildren(title, el("p", { class: "vibes" }, vibeText(p.playlist.vibes)), vibeBar(p.playlist.vibes), table);
            title.focus();
          } catch (error) { target.textContent = "Could not load the playlist: " + error.message; }
        }
        async function showPlaylists() {
          const target = document.getElementById("playlist-list");
          try {
            const data = await api("/api/playlists");
            if (!data.playlists.length) { target.replaceChildren(el("li", {}, "No playlists yet.")); return; }
            target.replaceChildren(...data.playlists.map(p => {
              const button = el("button", { class: "playlist", type: "button", "data-id": String(p.id) },
                el("strong", {}, p.name), " · " + p.track_count + " tracks · " + percent(p.tracks_with_features, p.track_count) + " with features",
                el("div", { class: "vibes" }, vibeText(p.vibes)), vibeBar(p.vibes));
              button.addEventListener("click", () => { location.hash = "playlist/" + p.id; });
              return el("li", { class: "playlist-item" }, button);
            }));
          } catch (error) { target.replaceChildren(el("li", {}, "Could not load the playlists: " + error.message)); }
        }
        // "More like this": the library's recommendations for one track, through the
        // Spotify-compatible endpoint, with the similarity and the reasons of each.
        const titles = new Map();
        async function showMoreLike(id) {
          const section = document.getElementById("more");
          const target = document.getElementById("more-body");
          section.hidden = false;
          target.textContent = "Loading…";
          try {
            const data = await api("/v1/recommendations?limit=20&seed_tracks=" + encodeURIComponent(id));
            const list = el("ol", { class: "recommendations" });
            for (const track of data.tracks) {
              const artists = track.artists.map(artist => artist.name).join(", ");
              list.append(el("li", { class: "recommendation", "data-id": track.id || "" },
                el("span", { class: "title" }, (artists ? artists + " – " : "") + track.name), " ",
                el("span", { class: "sim" }, "similarity " + track.vibes.similarity.toFixed(2)),
                el("div", { class: "why" }, track.vibes.why.join("; "))));
            }
            const seedTitle = titles.get(id) || "track " + id;
            const intro = el("p", {}, "Like " + seedTitle + ": " + data.tracks.length + " tracks of your library.");
            if (!data.tracks.length) { target.replaceChildren(intro, el("p", {}, "Nothing in the library is close enough.")); return; }
            target.replaceChildren(intro, list, saveForm("More like " + seedTitle, data.tracks.map(track => track.vibes.track_id)));
            document.getElementById("more-title").focus();
          } catch (error) { target.textContent = "Could not find tracks like this one: " + error.message; }
        }
        // Saves a list as a playlist of the store (POST /api/playlists, with the session's CSRF token).
        function saveForm(name, trackIDs) {
          const input = el("input", { id: "save-name", name: "name", required: "", maxlength: "200", value: name });
          const status = el("span", { class: "save-status", role: "status" });
          const form = el("form", { class: "save-playlist" }, el("label", { for: "save-name" }, "Playlist name"), input,
            el("button", { type: "submit" }, "Save as playlist"), status);
          form.addEventListener("submit", async event => {
            event.preventDefault();
            try {
              const saved = await post("/api/playlists", { name: input.value, track_ids: trackIDs });
              status.textContent = "Saved as playlist “" + saved.name + "” (" + saved.track_count + " tracks).";
              showPlaylists();
            } catch (error) { status.textContent = "Could not save: " + error.message; }
          });
          return form;
        }
        // The address says what is open: #playlist/ID, #more/TRACK, or both (#playlist/ID/more/TRACK),
        // so that the back button and links work.
        async function route() {
          const parts = location.hash.replace(/^#/, "").split("/");
          for (let index = 0; index + 1 < parts.length; index += 2) {
            const value = decodeURIComponent(parts[index + 1]);
            if (parts[index] === "playlist") await showPlaylist(value);
            if (parts[index] === "more") await showMoreLike(value);
          }
        }
        window.addEventListener("hashchange", route);
        showLibrary();
        showPlaylists().then(route);
        """
}
