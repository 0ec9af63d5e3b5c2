// The mood path builder: its script and styles, appended to app.js and app.css.

extension WebApp {
    static let moodPathStyles = """
        fieldset { border: 1px solid #8884; border-radius: .4rem; margin: .5rem 0; }
        fieldset .inline { margin: .3rem 0; }
        """

    static let moodPathScript = """
        (() => {
          // From a mood or a song to a mood or a song, so many tracks or minutes long, in flow order
          // or the path's own; a preview, then saved as a playlist of the library.
          const trackTitle = t => (t.artists && t.artists.length ? t.artists.join(", ") + " – " : "") + t.name;
          let moods = [];
          // One end of the path: a mood, or a song found by searching the library.
          function endPicker(prefix, legend, mood) {
            const kind = el("select", { id: prefix + "-kind", name: prefix + "-kind" },
              el("option", { value: "mood" }, "a mood"), el("option", { value: "track" }, "a song"));
            const moodChoice = el("select", { id: prefix + "-mood", name: prefix + "-mood" },
              ...moods.map(m => el("option", { value: m.name }, m.name)));
            moodChoice.value = mood;
            const query = el("input", { id: prefix + "-query", type: "search", placeholder: "artist or title" });
            const find = el("button", { type: "button", id: prefix + "-find" }, "Find");
            const song = el("select", { id: prefix + "-track", name: prefix + "-track" });
            const status = el("span", { role: "status", id: prefix + "-found" });
            const moodRow = el("div", { class: "inline" }, el("label", { for: prefix + "-mood" }, "Mood"), moodChoice);
            const songRow = el("div", { class: "inline" }, el("label", { for: prefix + "-query" }, "Song"), query, find,
              el("label", { for: prefix + "-track" }, "Match"), song, status);
            const toggle = () => { moodRow.hidden = kind.value !== "mood"; songRow.hidden = kind.value !== "track"; };
            kind.addEventListener("change", toggle);
            toggle();
            const search = async () => {
              status.textContent = "Searching…";
              try {
                const data = await api("/api/tracks?limit=10&q=" + encodeURIComponent(query.value));
                song.replaceChildren(...data.tracks.map(m => el("option", { value: String(m.track.id) }, trackTitle(m.track))));
                status.textContent = data.tracks.length ? data.tracks.length + " found" : "nothing found";
              } catch (error) { status.textContent = error.message; }
            };
            find.addEventListener("click", search);
            query.addEventListener("keydown", event => { if (event.key === "Enter") { event.preventDefault(); search(); } });
            const fieldset = el("fieldset", {}, el("legend", {}, legend),
              el("div", { class: "inline" }, el("label", { for: prefix + "-kind" }, legend === "From" ? "Start at" : "End at"), kind), moodRow, songRow);
            return { fieldset, value: () => kind.value === "mood" ? "mood:" + moodChoice.value : (song.value ? "track:" + song.value : "") };
          }
          function builder() {
            const from = endPicker("path-from", "From", "calm");
            const to = endPicker("path-to", "To", "energetic");
            const unit = el("select", { id: "path-unit", name: "unit" }, el("option", { value: "count" }, "tracks"),
              el("option", { value: "minutes" }, "minutes"));
            const amount = el("input", { id: "path-length", name: "length", type: "number", min: "1", max: "500", value: "12", required: "" });
            const order = el("select", { id: "path-order", name: "order" },
              el("option", { value: "flow" }, "flow within each step"), el("option", { value: "none" }, "the path's own order"));
            const preview = el("div", { id: "path-preview", "aria-live": "polite" });
            const form = el("form", { id: "path-form" }, from.fieldset, to.fieldset,
              el("div", { class: "inline" }, el("label", { for: "path-length" }, "Length"), amount, unit,
                el("label", { for: "path-order" }, "Order"), order, el("button", { type: "submit" }, "Preview path")));
            form.addEventListener("submit", async event => {
              event.preventDefault();
              const start = from.value(), end = to.value();
              if (!start || !end) { preview.textContent = "Find and choose a song for each song end first."; return; }
              preview.textContent = "Building…";
              try {
                const data = await api("/api/mood-path?from=" + encodeURIComponent(start) + "&to=" + encodeURIComponent(end) +
                  "&" + unit.value + "=" + encodeURIComponent(amount.value) + "&order=" + order.value);
                preview.replaceChildren(...pathPreview(data));
              } catch (error) { preview.textContent = "Could not build the path: " + error.message; }
            });
            return el("div", {}, form, preview);
          }
          function pathPreview(data) {
            const list = el("ol", { class: "preview", id: "path-list" }, ...data.tracks.map(t => el("li", { "data-track-id": String(t.track_id) },
              trackTitle(t), el("span", { class: "sim" }, " · valence " + (t.valence == null ? "–" : t.valence.toFixed(2)) +
              " · energy " + (t.energy == null ? "–" : t.energy.toFixed(2))))));
            const name = el("input", { id: "path-name", name: "name", required: "", maxlength: "200", value: data.name });
            const status = el("span", { class: "status", role: "status", id: "path-status" });
            const form = el("form", { class: "inline", id: "path-save" }, el("label", { for: "path-name" }, "Playlist name"), name,
              el("button", { type: "submit" }, "Save as playlist"), status);
            form.addEventListener("submit", async event => {
              event.preventDefault();
              try {
                const saved = await post("/api/playlists", { name: name.value, description: data.description,
                  track_ids: data.tracks.map(t => t.track_id) });
                status.textContent = "Saved as playlist “" + saved.name + "” (" + saved.track_count + " tracks).";
                if (typeof showPlaylists === "function") showPlaylists();
              } catch (error) { status.textContent = "Could not save: " + error.message; }
            });
            const minutes = Math.round(data.duration_ms / 60000);
            return [el("p", {}, data.tracks.length + " tracks, " + minutes + " min: " + data.description + "."), list, form];
          }
          async function start() {
            const target = document.getElementById("path-body");
            try {
              moods = (await api("/api/moods")).moods;
              target.replaceChildren(builder());
              // #path/FROM/TO/COUNT previews a path at once: #path/mood:calm/mood:happy/12.
              const parts = location.hash.replace(/^#/, "").split("/").map(decodeURIComponent);
              if (parts[0] === "path" && parts.length >= 3) {
                const set = (prefix, end) => {
                  const [kind, value] = end.split(":");
                  document.getElementById(prefix + "-kind").value = kind;
                  document.getElementById(prefix + "-kind").dispatchEvent(new Event("change"));
                  if (kind === "mood") document.getElementById(prefix + "-mood").value = value;
                  else document.getElementById(prefix + "-track").append(el("option", { value, selected: "" }, "track " + value));
                };
                set("path-from", parts[1]);
                set("path-to", parts[2]);
                if (parts[3]) document.getElementById("path-length").value = parts[3];
                document.getElementById("path-form").requestSubmit();
              }
            } catch (error) { target.textContent = "Could not load the moods: " + error.message; }
          }
          start();
        })();
        """
}
