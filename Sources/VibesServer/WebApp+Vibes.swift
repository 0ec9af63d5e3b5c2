// The vibes view and "order this playlist": their script and styles, appended to app.js and
// app.css. The script keeps its names to itself (one function scope) and uses the app's `el`,
// `api`, `post`, `percent` and `colours`.

extension WebApp {
    static let vibesStyles = """
        .run-info { opacity: .85; }
        form.inline { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
        form.inline input, form.inline select, form.inline button { font: inherit; }
        button.vibe { font: inherit; text-align: left; width: 100%; padding: .5rem; cursor: pointer;
          border: 1px solid #8884; border-radius: .4rem; background: none; color: inherit; }
        .swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: .2rem; margin-right: .4rem; }
        .profile { display: grid; grid-template-columns: max-content 1fr max-content; gap: .2rem .6rem; align-items: center; }
        .zbar { position: relative; height: .6rem; background: #8883; border-radius: .3rem; min-width: 6rem; }
        .zbar span { position: absolute; top: 0; height: 100%; background: #3b82f6; border-radius: .3rem; }
        .zbar::after { content: ""; position: absolute; left: 50%; top: -.15rem; bottom: -.15rem; border-left: 1px solid #8888; }
        .num { font-variant-numeric: tabular-nums; text-align: right; }
        .genres li, .examples li { margin: .2rem 0; }
        details summary { cursor: pointer; }
        ol.preview { padding-left: 1.8rem; }
        ol.preview li { margin: .2rem 0; }
        .status { font-weight: 600; }
        """

    static let vibesScript = """
        (() => {
          // The vibes of the current run: each one's profile, top genres, examples and members;
          // re-clustering with a chosen k or auto.
          const vibesList = () => document.getElementById("vibe-list");
          const zBar = z => {
            const bar = el("span", {});
            const clamped = Math.max(-2, Math.min(2, z));
            bar.style.left = (clamped < 0 ? 50 + clamped * 25 : 50) + "%";
            bar.style.width = Math.abs(clamped) * 25 + "%";
            return el("div", { class: "zbar", role: "img", "aria-label": (z >= 0 ? "+" : "") + z.toFixed(1) + " standard deviations" }, bar);
          };
          const trackTitle = t => (t.artists && t.artists.length ? t.artists.join(", ") + " – " : "") + t.name;
          async function showVibes() {
            const target = vibesList();
            const info = document.getElementById("vibes-run");
            try {
              const data = await api("/api/vibes");
              if (!data.run_id) {
                info.textContent = "No vibes yet: re-cluster the library to find them.";
                target.replaceChildren();
                return;
              }
              info.textContent = "Run " + data.run_id + ": " + data.cluster_count + " vibes over " + data.track_count + " tracks.";
              target.replaceChildren(...data.vibes.map(vibe => {
                const swatch = el("span", { class: "swatch", "aria-hidden": "true" });
                swatch.style.background = colours[(vibe.number - 1) % colours.length];
                const button = el("button", { class: "vibe", type: "button", "data-number": String(vibe.number) },
                  swatch, el("strong", {}, vibe.number + ". " + vibe.name), " · " + vibe.mood + " · " + vibe.size +
                  " tracks (" + Math.round(vibe.share * 100) + "%)");
                button.addEventListener("click", () => { location.hash = "vibe/" + vibe.number; });
                return el("li", { class: "vibe-item" }, button);
              }));
            } catch (error) { info.textContent = "Could not load the vibes: " + error.message; }
          }
          async function showVibe(number) {
            const target = document.getElementById("vibe-detail");
            target.textContent = "Loading…";
            try {
              const data = await api("/api/vibes/" + encodeURIComponent(number));
              const vibe = data.vibe;
              const title = el("h3", { tabindex: "-1" }, vibe.number + ". " + vibe.name);
              const profile = el("div", { class: "profile", role: "list", "aria-label": "Profile" });
              for (const item of data.profile) {
                profile.append(el("span", { role: "listitem" }, item.feature), zBar(item.z_score),
                  el("span", { class: "num" }, item.value.toFixed(item.value > 10 || item.value < -10 ? 0 : 2)));
              }
              const genres = el("ol", { class: "genres" }, ...data.top_genres.map(g => el("li", {}, g.genre + " (" + g.tracks + ")")));
              const examples = el("ol", { class: "examples" }, ...vibe.examples.map(e => el("li", {}, trackTitle(e))));
              const rows = el("tbody", {}, ...data.tracks.map((m, index) => el("tr", {},
                el("td", { class: "num" }, String(index + 1)), el("td", {}, trackTitle(m.track)),
                el("td", { class: "album" }, m.track.album || ""), el("td", { class: "num" }, m.distance.toFixed(2)))));
              const table = el("table", { class: "vibe-tracks" }, el("thead", {}, el("tr", {}, el("th", {}, "#"),
                el("th", {}, "Track"), el("th", { class: "album" }, "Album"), el("th", {}, "Distance"))), rows);
              target.replaceChildren(title,
                el("p", { class: "vibes" }, vibe.mood + " · " + vibe.size + " tracks, " + Math.round(vibe.share * 100) +
                  "% of the run · stands out in " + (vibe.distinguishing_features.join(", ") || "nothing")),
                el("h4", {}, "Profile"), profile,
                el("h4", {}, "Top genres"), data.top_genres.length ? genres : el("p", {}, "No genre tags."),
                el("h4", {}, "Examples"), examples,
                el("details", {}, el("summary", {}, "All " + data.tracks.length + " tracks, nearest the centre first"), table));
              title.focus();
            } catch (error) { target.textContent = "Could not load the vibe: " + error.message; }
          }
          function clusterForm() {
            const choice = el("select", { id: "cluster-k", name: "k" }, el("option", { value: "auto" }, "auto (4–12, by silhouette)"));
            for (let k = 2; k <= 16; k += 1) choice.append(el("option", { value: String(k) }, String(k)));
            const status = el("span", { class: "status", role: "status", id: "cluster-status" });
            const button = el("button", { type: "submit" }, "Re-cluster");
            const form = el("form", { class: "inline", id: "cluster-form" }, el("label", { for: "cluster-k" }, "Number of vibes"),
              choice, button, status);
            form.addEventListener("submit", async event => {
              event.preventDefault();
              button.disabled = true;
              status.textContent = "Clustering…";
              try {
                const k = choice.value === "auto" ? "auto" : Number(choice.value);
                const run = await post("/api/vibes/cluster", { k });
                status.textContent = "Saved run " + run.run_id + " with " + run.cluster_count + " vibes.";
                document.getElementById("vibe-detail").replaceChildren();
                await showVibes();
                if (typeof showPlaylists === "function") showPlaylists();
              } catch (error) { status.textContent = "Could not re-cluster: " + error.message; }
              button.disabled = false;
            });
            return form;
          }

          // "Order this playlist": a preview in flow, arc or key order, saved in the library, or
          // pushed to the playlist's own Spotify playlist (moved in place, dates added kept) when it
          // is on Spotify and the server is signed in.
          function orderForm(id) {
            const order = el("select", { id: "order-kind", name: "order" },
              el("option", { value: "flow" }, "flow (smoothest transitions)"),
              el("option", { value: "arc" }, "arc (an energy curve)"),
              el("option", { value: "key" }, "by key (round the Camelot wheel)"));
            const arc = el("select", { id: "order-arc", name: "arc" },
              ...["peak", "rising", "falling", "flat"].map(a => el("option", { value: a }, a)));
            const arcLabel = el("label", { for: "order-arc" }, "Energy curve");
            const toggleArc = () => { arc.hidden = arcLabel.hidden = order.value !== "arc"; };
            order.addEventListener("change", toggleArc);
            toggleArc();
            const preview = el("div", { id: "order-preview", "aria-live": "polite" });
            const form = el("form", { class: "inline", id: "order-form" }, el("label", { for: "order-kind" }, "Order"), order,
              arcLabel, arc, el("button", { type: "submit" }, "Preview order"));
            form.addEventListener("submit", async event => {
              event.preventDefault();
              preview.textContent = "Ordering…";
              const choice = { order: order.value, arc: arc.value };
              try {
                const query = "?order=" + encodeURIComponent(choice.order) + (choice.order === "arc" ? "&arc=" + encodeURIComponent(choice.arc) : "");
                const data = await api("/api/playlists/" + encodeURIComponent(id) + "/order" + query);
                preview.replaceChildren(...orderPreview(id, data, choice));
              } catch (error) { preview.textContent = "Could not order the playlist: " + error.message; }
            });
            return el("div", { class: "order" }, el("h4", {}, "Order this playlist"), form, preview);
          }
          function orderPreview(id, data, choice) {
            const list = el("ol", { class: "preview", id: "order-list" }, ...data.tracks.map(t => el("li", { "data-track-id": String(t.track_id) },
              trackTitle(t), el("span", { class: "sim" }, " · energy " + (t.energy == null ? "–" : t.energy.toFixed(2)) +
              (t.tempo == null ? "" : " · " + Math.round(t.tempo) + " BPM")))));
            const name = el("input", { id: "order-name", name: "name", required: "", maxlength: "200", value: data.name });
            const status = el("span", { class: "status", role: "status", id: "order-status" });
            const save = el("button", { type: "submit" }, "Save to library");
            const why = el("p", { class: "why", id: "order-push-why" }, data.spotify.message);
            const push = el("button", { type: "button", id: "order-push", "aria-describedby": "order-push-why" },
              "Push order to Spotify");
            push.disabled = !data.spotify.can_push;
            const send = async to => {
              status.textContent = to === "spotify" ? "Moving the tracks on Spotify…" : "Saving…";
              try {
                const done = await post("/api/playlists/" + encodeURIComponent(id) + "/order",
                  { order: choice.order, arc: choice.arc, name: name.value, to });
                if (to === "spotify") {
                  status.textContent = done.moved ? "Reordered on Spotify: " + done.moved + " of " + done.item_count +
                    " items moved, each keeping its date added." : "Already in this order on Spotify; nothing moved.";
                } else {
                  status.textContent = "Saved as playlist “" + done.name + "” (" + done.track_count + " tracks).";
                  if (typeof showPlaylists === "function") showPlaylists();
                }
              } catch (error) {
                status.textContent = (to === "spotify" ? "Could not push the order: " : "Could not save: ") + error.message;
              }
            };
            const form = el("form", { class: "inline" }, el("label", { for: "order-name" }, "Name"), name, save, push, status);
            form.addEventListener("submit", event => { event.preventDefault(); send("library"); });
            push.addEventListener("click", () => send("spotify"));
            return [el("p", {}, data.notes.join(". ") + "."), list, form, why];
          }
          function route() {
            // A part that is not valid percent-encoding (#vibe/%) is taken as it is.
            const decoded = part => { try { return decodeURIComponent(part); } catch { return part; } };
            const parts = location.hash.replace(/^#/, "").split("/").map(decoded);
            const holder = document.getElementById("playlist-order");
            if (parts[0] === "vibe" && parts[1]) showVibe(parts[1]);
            if (parts[0] === "playlist" && parts[1]) {
              holder.replaceChildren(orderForm(parts[1]));
              // #playlist/ID/order/KIND[/ARC] previews that order at once.
              if (parts[2] === "order" && parts[3]) {
                document.getElementById("order-kind").value = parts[3];
                if (parts[4]) document.getElementById("order-arc").value = parts[4];
                document.getElementById("order-kind").dispatchEvent(new Event("change"));
                document.getElementById("order-form").requestSubmit();
              }
            } else { holder.replaceChildren(); }
          }
          document.getElementById("vibes-controls").replaceChildren(clusterForm());
          window.addEventListener("hashchange", route);
          showVibes().then(route);
        })();
        """
}
