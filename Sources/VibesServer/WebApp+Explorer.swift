// The explorer of the web app: every track as a point on a canvas, on two features or the map,
// coloured by vibe and filtered by playlist, vibe, genre and feature source; a box or a lasso
// (or the keyboard) moves tracks into a staging list, which is saved as a playlist or exported.

extension WebApp {
    /// The explorer's section of the page.
    static let explorerSection = """
        <section id="explorer" aria-labelledby="explorer-title">
        <h2 id="explorer-title">Explorer</h2>
        <p id="explorer-status" role="status">The explorer loads when you open it.</p>
        <div class="explorer-controls" hidden>
        <label>Across <select id="explorer-x" aria-label="Horizontal axis"></select></label>
        <label>Up <select id="explorer-y" aria-label="Vertical axis"></select></label>
        <label>Playlist <select id="explorer-playlist"><option value="">All</option></select></label>
        <label>Vibe <select id="explorer-vibe"><option value="">All</option></select></label>
        <label>Genre <select id="explorer-genre"><option value="">All</option></select></label>
        <label>Source <select id="explorer-source"><option value="">All</option></select></label>
        </div>
        <div class="explorer-controls" hidden>
        <fieldset class="explorer-mode"><legend>Drag to</legend>
        <label><input type="radio" name="explorer-mode" value="lasso" checked> lasso</label>
        <label><input type="radio" name="explorer-mode" value="box"> box</label>
        <label><input type="radio" name="explorer-mode" value="pan"> pan</label>
        </fieldset>
        <button type="button" id="explorer-zoom-in" aria-label="Zoom in">+</button>
        <button type="button" id="explorer-zoom-out" aria-label="Zoom out">−</button>
        <button type="button" id="explorer-reset">Reset view</button>
        <button type="button" id="explorer-add-shown">Add shown tracks</button>
        </div>
        <div class="explorer-plot">
        <canvas id="explorer-canvas" tabindex="0" hidden aria-describedby="explorer-tip"
          aria-label="Scatter of the library's tracks. Arrow keys pan, plus and minus zoom; ] and [ step through the shown tracks, naming each, and Enter stages the named one; use Add shown tracks to stage the filtered tracks."></canvas>
        <p id="explorer-tip" class="explorer-tip" role="status" aria-live="polite" hidden></p>
        </div>
        <ul id="explorer-legend" class="legend" aria-label="Vibes"></ul>
        <div id="staging" hidden>
        <h3 id="staging-title">Staging list</h3>
        <p id="staging-count" role="status">No tracks staged.</p>
        <ol id="staging-list"></ol>
        <button type="button" id="staging-clear">Clear</button>
        <form id="staging-save" class="save-playlist">
        <label for="staging-name">Playlist name</label>
        <input id="staging-name" name="name" required maxlength="200" value="Explorer selection">
        <button type="submit">Save as playlist</button>
        </form>
        <p class="staging-actions">
        <button type="button" id="staging-m3u">Export M3U</button>
        <button type="button" id="staging-csv">Export CSV</button>
        <button type="button" id="staging-spotify" disabled aria-describedby="staging-spotify-why">Push to Spotify</button>
        <span id="staging-spotify-why">Not signed in to Spotify: run <code>vibes-analyze auth login</code>, then come
        back to this page (or save the playlist and run <code>vibes-analyze playlist push "NAME"</code>).</span>
        </p>
        <p id="staging-status" role="status"></p>
        </div>
        </section>
        """

    static let explorerStyles = """
        .explorer-controls { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin: .5rem 0; }
        .explorer-controls select, .explorer-controls button { font: inherit; }
        fieldset.explorer-mode { display: inline-flex; gap: .5rem; border: 1px solid #8884; border-radius: .4rem; padding: .1rem .5rem; margin: 0; }
        fieldset.explorer-mode legend { padding: 0 .2rem; font-size: .85rem; }
        #explorer-canvas { display: block; width: 100%; height: min(70vh, 36rem); border: 1px solid #8884; border-radius: .4rem;
          touch-action: none; cursor: crosshair; }
        #explorer-canvas[hidden] { display: none; }
        .explorer-plot { position: relative; }
        .explorer-tip { position: absolute; margin: 0; padding: .15rem .45rem; max-width: 18rem; pointer-events: none;
          background: Canvas; color: CanvasText; border: 1px solid #8888; border-radius: .3rem; font-size: .85rem;
          box-shadow: 0 1px 4px #0004; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        #explorer-canvas:focus { outline: 3px solid #3b82f6; outline-offset: 2px; }
        ul.legend { display: flex; flex-wrap: wrap; gap: .25rem 1rem; font-size: .9rem; }
        ul.legend li { margin: 0; }
        ul.legend span { display: inline-block; width: .8rem; height: .8rem; border-radius: 50%; margin-right: .3rem; vertical-align: -.1rem; }
        #staging-list { max-height: 16rem; overflow: auto; padding-left: 2rem; }
        #staging-list li { margin: .1rem 0; }
        #staging-list button { font: inherit; font-size: .8rem; margin-left: .5rem; }
        .staging-actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
        #staging-spotify-why { font-size: .85rem; opacity: .85; }
        """

    static let explorerScript = """
        // The explorer: one canvas, no element per point.
        (() => {
          const ex = { loaded: false, loading: null, n: 0, ids: [], indexOfId: new Map(), xs: null, ys: null, vibe: null,
            vibes: [], facets: null, signedIn: false, shown: null, shownCount: 0, staged: [], stagedSet: new Set(),
            view: { scale: 1, tx: 0, ty: 0 }, bounds: null, drag: null, frame: 0, named: -1 };
          const stats = { draws: 0, lastDrawMs: 0, firstPaintAt: null, pointsLoadedAt: null };
          window.explorerStats = stats;
          const $ = id => document.getElementById(id);
          const canvas = $("explorer-canvas");
          const status = text => { $("explorer-status").textContent = text; };
          let token = null;
          function send(path, value) {
            return busy(async () => {
              if (!token) token = (await api("/api/session")).csrf_token;
              const response = await fetch(path, { method: "POST", body: JSON.stringify(value),
                headers: { "Content-Type": "application/json", "X-CSRF-Token": token } });
              if (!response.ok) {
                const body = await response.json().catch(() => ({}));
                throw new Error(body.error ? body.error.message : response.statusText);
              }
              return response;
            });
          }
          const colourOf = number => number > 0 ? colours[(number - 1) % colours.length] : "#888888";
          const title = index => (ex.titleOf && ex.titleOf[index]) || "track " + ex.ids[index];
          // The points and the facets are separate answers, each keyed by track ID: they are
          // joined by ID, so a store changed between the two requests never puts one track's
          // title or source on another's point.
          function joinFacets() {
            ex.titleOf = new Array(ex.n); ex.sourceOf = new Int32Array(ex.n).fill(-1);
            if (!ex.facets) return;
            ex.facets.track_ids.forEach((id, k) => {
              const index = ex.indexOfId.get(id);
              if (index !== undefined) { ex.titleOf[index] = ex.facets.titles[k]; ex.sourceOf[index] = ex.facets.source[k]; }
            });
          }

          // MARK: loading
          async function loadPoints(x, y) {
            const query = "/api/points?x=" + encodeURIComponent(x) + "&y=" + encodeURIComponent(y);
            const data = await api(query);
            ex.n = data.count; ex.ids = data.track_ids; ex.vibes = data.vibes;
            ex.indexOfId = new Map(); data.track_ids.forEach((id, index) => ex.indexOfId.set(id, index));
            ex.xs = Float64Array.from(data.x.values, v => v == null ? NaN : v);
            ex.ys = Float64Array.from(data.y.values, v => v == null ? NaN : v);
            ex.vibe = Int32Array.from(data.vibe);
            ex.axes = data.axes; ex.xName = data.x.name; ex.yName = data.y.name;
            // The bounds of each axis, a little wider than the data.
            const range = values => { let low = Infinity, high = -Infinity;
              for (const v of values) if (v === v) { if (v < low) low = v; if (v > high) high = v; }
              if (low === Infinity) return [0, 1];
              const pad = (high - low || 1) * 0.03; return [low - pad, high + pad]; };
            ex.bounds = { x: range(ex.xs), y: range(ex.ys) };
            joinFacets();
            stats.pointsLoadedAt = performance.now();
          }
          async function loadFacets() {
            ex.facets = await api("/api/points/facets");
            joinFacets();
            const fill = (select, items) => {
              const keep = select.value;
              select.replaceChildren(el("option", { value: "" }, "All"), ...items.map(([value, label]) => el("option", { value }, label)));
              select.value = keep;
            };
            fill($("explorer-playlist"), ex.facets.playlists.map(p => [String(p.id), p.name + " (" + p.track_ids.length + ")"]));
            fill($("explorer-genre"), ex.facets.genres.map((g, i) => [String(i), g.name + " (" + g.track_ids.length + ")"]));
            fill($("explorer-source"), ex.facets.sources.map((s, i) => [String(i), s]));
            renderStaging();
          }
          function fillAxes() {
            const options = ex.axes.filter(a => a.tracks === undefined || a.tracks > 0)
              .map(a => [a.name, a.name === "pc1" ? "map (PC1)" : a.name === "pc2" ? "map (PC2)" : a.name.replace("_", " ")]);
            for (const [id, value] of [["explorer-x", ex.xName], ["explorer-y", ex.yName]]) {
              $(id).replaceChildren(...options.map(([name, label]) => el("option", { value: name }, label)));
              $(id).value = value;
            }
            $("explorer-vibe").replaceChildren(el("option", { value: "" }, "All"),
              ...ex.vibes.map(v => el("option", { value: String(v.number) }, v.name)), el("option", { value: "0" }, "No vibe"));
            $("explorer-legend").replaceChildren(...ex.vibes.map(v => {
              const dot = el("span", {}); dot.style.background = colourOf(v.number);
              return el("li", {}, dot, v.name);
            }));
          }
          async function open() {
            if (ex.loading) return ex.loading;
            ex.loading = (async () => {
              status("Loading the tracks…");
              try {
                await loadPoints("energy", "valence");
                fillAxes();
                for (const node of document.querySelectorAll(".explorer-controls")) node.hidden = false;
                canvas.hidden = false; $("staging").hidden = false;
                applyFilters();
                drawNow();
                stats.firstPaintAt = performance.now();
                ex.loaded = true;
                await loadFacets();
                applyFilters();
              } catch (error) { status("Could not load the explorer: " + error.message); }
            })();
            return ex.loading;
          }

          // MARK: filters
          function applyFilters() {
            const shown = new Uint8Array(ex.n);
            const playlist = $("explorer-playlist").value, vibe = $("explorer-vibe").value;
            const genre = $("explorer-genre").value, source = $("explorer-source").value;
            let members = null;
            const restrict = ids => { const set = new Uint8Array(ex.n);
              for (const id of ids) { const index = ex.indexOfId.get(id); if (index !== undefined) set[index] = 1; }
              return set; };
            const masks = [];
            if (playlist && ex.facets) masks.push(restrict(ex.facets.playlists.find(p => String(p.id) === playlist)?.track_ids || []));
            if (genre && ex.facets) masks.push(restrict(ex.facets.genres[Number(genre)]?.track_ids || []));
            let count = 0;
            for (let i = 0; i < ex.n; i++) {
              if (!(ex.xs[i] === ex.xs[i] && ex.ys[i] === ex.ys[i])) continue;
              if (vibe !== "" && ex.vibe[i] !== Number(vibe)) continue;
              if (source !== "" && ex.sourceOf[i] !== Number(source)) continue;
              if (masks.some(mask => !mask[i])) continue;
              shown[i] = 1; count++;
            }
            ex.shown = shown; ex.shownCount = count;
            if (ex.named >= 0 && !shown[ex.named]) name(-1);
            const filtered = playlist || vibe || genre || source;
            status(count + " of " + ex.n + " tracks shown" + (filtered ? " (filtered)" : "") + ", on " +
              axisLabel(ex.xName) + " across and " + axisLabel(ex.yName) + " up.");
            canvas.dataset.shown = String(count);
            draw();
          }
          const axisLabel = name => name === "pc1" ? "map PC1" : name === "pc2" ? "map PC2" : name.replace("_", " ");

          // MARK: drawing
          function size() {
            const ratio = window.devicePixelRatio || 1;
            const width = canvas.clientWidth, height = canvas.clientHeight;
            if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
              canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
            }
            return { width, height, ratio };
          }
          // Data to CSS pixels of the canvas, through the view (zoom and pan).
          function projector(width, height) {
            const [x0, x1] = ex.bounds.x, [y0, y1] = ex.bounds.y, v = ex.view;
            const sx = width / (x1 - x0) * v.scale, sy = height / (y1 - y0) * v.scale;
            return { x: value => (value - x0) * sx + v.tx, y: value => height - (value - y0) * sy + v.ty,
              invert: (px, py) => [(px - v.tx) / sx + x0, (height - py + v.ty) / sy + y0] };
          }
          function draw() {
            if (ex.frame || !ex.bounds) return;
            ex.frame = requestAnimationFrame(() => { ex.frame = 0; drawNow(); });
          }
          function drawNow() {
            if (!ex.bounds || canvas.hidden) return;
            const started = performance.now();
            const { width, height, ratio } = size();
            const context = canvas.getContext("2d");
            context.setTransform(ratio, 0, 0, ratio, 0, 0);
            context.clearRect(0, 0, width, height);
            const p = projector(width, height);
            const dot = 3;
            // Grouped by colour: one fill style per vibe, points as small squares.
            const groups = new Map();
            for (let i = 0; i < ex.n; i++) if (ex.shown[i]) {
              const key = ex.vibe[i]; let list = groups.get(key);
              if (!list) { list = []; groups.set(key, list); } list.push(i);
            }
            context.globalAlpha = 0.75;
            for (const [vibe, list] of groups) {
              context.fillStyle = colourOf(vibe);
              for (const i of list) {
                const x = p.x(ex.xs[i]), y = p.y(ex.ys[i]);
                if (x < -dot || y < -dot || x > width + dot || y > height + dot) continue;
                context.fillRect(x - dot / 2, y - dot / 2, dot, dot);
              }
            }
            context.globalAlpha = 1;
            context.strokeStyle = getComputedStyle(canvas).color || "#000";
            context.lineWidth = 1.5;
            for (const id of ex.staged) {
              const i = ex.indexOfId.get(id);
              if (i === undefined || !(ex.xs[i] === ex.xs[i])) continue;
              context.strokeRect(p.x(ex.xs[i]) - 3, p.y(ex.ys[i]) - 3, 6, 6);
            }
            if (ex.named >= 0 && ex.shown[ex.named]) {
              placeTip(p);
              context.strokeStyle = "#3b82f6"; context.lineWidth = 2;
              context.beginPath(); context.arc(p.x(ex.xs[ex.named]), p.y(ex.ys[ex.named]), 6, 0, 2 * Math.PI); context.stroke();
            }
            if (ex.drag && ex.drag.mode !== "pan" && ex.drag.path.length > 1) {
              context.setLineDash([4, 3]); context.strokeStyle = "#3b82f6"; context.lineWidth = 1.5;
              context.beginPath();
              const path = ex.drag.mode === "box" ? boxPath(ex.drag.path) : ex.drag.path;
              path.forEach(([x, y], k) => k ? context.lineTo(x, y) : context.moveTo(x, y));
              context.closePath(); context.stroke(); context.setLineDash([]);
            }
            context.fillStyle = getComputedStyle(canvas).color || "#000";
            context.font = "12px system-ui, sans-serif";
            context.fillText(axisLabel(ex.xName) + " →", width - 110, height - 6);
            context.save(); context.translate(12, 110); context.rotate(-Math.PI / 2);
            context.fillText(axisLabel(ex.yName) + " →", 0, 0); context.restore();
            stats.draws++; stats.lastDrawMs = performance.now() - started;
          }
          function boxPath(path) {
            const [a, b] = [path[0], path[path.length - 1]];
            return [[a[0], a[1]], [b[0], a[1]], [b[0], b[1]], [a[0], b[1]]];
          }

          // MARK: selection
          function inside(polygon, x, y) {
            let result = false;
            for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
              const [xi, yi] = polygon[i], [xj, yj] = polygon[j];
              if ((yi > y) !== (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) result = !result;
            }
            return result;
          }
          function select(path, mode) {
            const polygon = mode === "box" ? boxPath(path) : path;
            if (polygon.length < 3) return;
            const xs = polygon.map(q => q[0]), ys = polygon.map(q => q[1]);
            const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
            const { width, height } = size();
            const p = projector(width, height);
            const chosen = [];
            for (let i = 0; i < ex.n; i++) {
              if (!ex.shown[i]) continue;
              const x = p.x(ex.xs[i]), y = p.y(ex.ys[i]);
              if (x < left || x > right || y < top || y > bottom) continue;
              if (mode === "box" || inside(polygon, x, y)) chosen.push(i);
            }
            stage(chosen.map(i => ex.ids[i]));
          }
          function stage(ids) {
            let added = 0;
            for (const id of ids) if (!ex.stagedSet.has(id)) { ex.stagedSet.add(id); ex.staged.push(id); added++; }
            renderStaging(added + " tracks added.");
            draw();
          }
          function unstage(id) {
            ex.stagedSet.delete(id); ex.staged = ex.staged.filter(other => other !== id);
            renderStaging(); draw();
          }
          const shownLimit = 500;
          function renderStaging(note) {
            const list = $("staging-list");
            list.replaceChildren(...ex.staged.slice(0, shownLimit).map(id => {
              const index = ex.indexOfId.get(id), name = index === undefined ? "track " + id : title(index);
              const remove = el("button", { type: "button", "aria-label": "Remove " + name }, "Remove");
              remove.addEventListener("click", () => {
                // The focus stays in the list: on the next track's button, or on Clear after the last.
                const position = ex.staged.indexOf(id);
                unstage(id);
                const buttons = list.querySelectorAll("button");
                (buttons[Math.min(position, buttons.length - 1)] || $("staging-clear")).focus();
              });
              return el("li", { "data-id": String(id) }, el("span", { class: "title" }, name), remove);
            }));
            const count = ex.staged.length;
            $("staging-count").textContent = (count ? count + " tracks staged" : "No tracks staged") +
              (count > shownLimit ? " (the first " + shownLimit + " listed)" : "") + "." + (note ? " " + note : "");
            for (const id of ["staging-m3u", "staging-csv", "staging-clear"]) $(id).disabled = !count;
            $("staging-spotify").disabled = !count || !ex.signedIn;
          }

          // MARK: pointer
          // CSS pixels from the canvas's drawing area (inside its border).
          function point(event) {
            const r = canvas.getBoundingClientRect();
            return [event.clientX - r.left - canvas.clientLeft, event.clientY - r.top - canvas.clientTop];
          }
          function mode() { return document.querySelector('input[name="explorer-mode"]:checked').value; }
          canvas.addEventListener("pointerdown", event => {
            if (event.button !== 0 || !ex.bounds) return;
            canvas.setPointerCapture(event.pointerId);
            ex.drag = { mode: mode(), path: [point(event)], view: { ...ex.view } };
            event.preventDefault();
          });
          // MARK: naming points
          // The shown track nearest (x, y) in CSS pixels of the canvas, within 8 px; -1 for none.
          function nearest(x, y) {
            const p = projector(canvas.clientWidth, canvas.clientHeight);
            let best = -1, bestDistance = 64;
            for (let i = 0; i < ex.n; i++) if (ex.shown[i]) {
              const dx = p.x(ex.xs[i]) - x, dy = p.y(ex.ys[i]) - y, distance = dx * dx + dy * dy;
              if (distance < bestDistance) { best = i; bestDistance = distance; }
            }
            return best;
          }
          // Names track `index` ("Artist – Title") beside its point, for the pointer, the keyboard and
          // screen readers (the tip is the canvas's description and a polite status); -1 hides it.
          const tip = $("explorer-tip");
          function name(index) {
            if (index === ex.named) return;
            ex.named = index;
            if (index < 0) { tip.hidden = true; tip.textContent = ""; delete canvas.dataset.named; draw(); return; }
            tip.textContent = title(index);
            tip.hidden = false;
            canvas.dataset.named = String(ex.ids[index]);
            placeTip(projector(canvas.clientWidth, canvas.clientHeight));
            draw();
          }
          // Puts the tip beside the named point, inside the canvas; it follows pans and zooms.
          function placeTip(p) {
            const x = p.x(ex.xs[ex.named]), y = p.y(ex.ys[ex.named]);
            const left = Math.min(x + 10, canvas.clientWidth - tip.offsetWidth - 4);
            tip.style.left = Math.max(0, left) + canvas.clientLeft + "px";
            tip.style.top = (y > 40 ? y - tip.offsetHeight - 8 : y + 12) + canvas.clientTop + "px";
            tip.dataset.x = String(Math.round(x)); tip.dataset.y = String(Math.round(y));
          }
          // The next (step 1) or previous (-1) shown track after the named one, by track order.
          function nameNext(direction) {
            if (!ex.shown || !ex.shownCount) return;
            let i = ex.named < 0 ? (direction > 0 ? -1 : 0) : ex.named;
            for (let k = 0; k < ex.n; k++) {
              i = (i + direction + ex.n) % ex.n;
              if (i >= 0 && ex.shown[i]) { name(i); return; }
            }
          }
          canvas.addEventListener("pointerleave", () => { if (!ex.drag && document.activeElement !== canvas) name(-1); });
          canvas.addEventListener("blur", () => name(-1));
          canvas.addEventListener("pointermove", event => {
            if (!ex.drag) {
              if (ex.shown && ex.bounds) { const [x, y] = point(event); name(nearest(x, y)); }
              return;
            }
            const q = point(event);
            if (ex.drag.mode === "pan") {
              const start = ex.drag.path[0];
              ex.view.tx = ex.drag.view.tx + q[0] - start[0]; ex.view.ty = ex.drag.view.ty + q[1] - start[1];
            } else { ex.drag.path.push(q); }
            draw();
          });
          function finish(event) {
            if (!ex.drag) return;
            const drag = ex.drag; ex.drag = null;
            if (drag.mode !== "pan") { drag.path.push(point(event)); select(drag.path, drag.mode); }
            draw();
          }
          canvas.addEventListener("pointerup", finish);
          canvas.addEventListener("pointercancel", () => { ex.drag = null; draw(); });
          function zoom(factor, cx, cy) {
            const v = ex.view, scale = Math.min(200, Math.max(0.5, v.scale * factor)), f = scale / v.scale;
            v.tx = cx - (cx - v.tx) * f; v.ty = cy - (cy - v.ty) * f; v.scale = scale;
            draw();
          }
          canvas.addEventListener("wheel", event => {
            event.preventDefault();
            const [x, y] = point(event);
            zoom(Math.exp(-event.deltaY * 0.002), x, y);
          }, { passive: false });
          canvas.addEventListener("keydown", event => {
            const step = 40, v = ex.view;
            const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
            if (moves[event.key]) { v.tx += moves[event.key][0]; v.ty += moves[event.key][1]; draw(); event.preventDefault(); }
            else if (event.key === "+" || event.key === "=") { zoom(1.25, canvas.clientWidth / 2, canvas.clientHeight / 2); event.preventDefault(); }
            else if (event.key === "-") { zoom(0.8, canvas.clientWidth / 2, canvas.clientHeight / 2); event.preventDefault(); }
            else if (event.key === "]" || event.key === "[") { nameNext(event.key === "]" ? 1 : -1); event.preventDefault(); }
            else if (event.key === "Enter" && ex.named >= 0) { stage([ex.ids[ex.named]]); event.preventDefault(); }
            else if (event.key === "Escape") name(-1);
          });
          $("explorer-zoom-in").addEventListener("click", () => zoom(1.25, canvas.clientWidth / 2, canvas.clientHeight / 2));
          $("explorer-zoom-out").addEventListener("click", () => zoom(0.8, canvas.clientWidth / 2, canvas.clientHeight / 2));
          $("explorer-reset").addEventListener("click", () => { ex.view = { scale: 1, tx: 0, ty: 0 }; draw(); });
          $("explorer-add-shown").addEventListener("click", () => {
            const ids = []; for (let i = 0; i < ex.n; i++) if (ex.shown[i]) ids.push(ex.ids[i]);
            stage(ids);
          });
          $("staging-clear").addEventListener("click", () => { ex.staged = []; ex.stagedSet.clear(); renderStaging(); draw(); });
          for (const id of ["explorer-playlist", "explorer-vibe", "explorer-genre", "explorer-source"]) {
            $(id).addEventListener("change", applyFilters);
          }
          for (const id of ["explorer-x", "explorer-y"]) $(id).addEventListener("change", async () => {
            try {
              await loadPoints($("explorer-x").value, $("explorer-y").value);
              ex.view = { scale: 1, tx: 0, ty: 0 }; applyFilters();
            } catch (error) { status("Could not load that axis: " + error.message); }
          });
          if (window.ResizeObserver) new ResizeObserver(() => draw()).observe(canvas);

          // MARK: saving and exporting
          // Saves the staging list under the name in the form; the playlist's id, or null.
          async function save() {
            const note = $("staging-status");
            if (!ex.staged.length) { note.textContent = "Stage some tracks first."; return null; }
            try {
              const saved = await (await send("/api/playlists", { name: $("staging-name").value, track_ids: ex.staged })).json();
              note.textContent = "Saved as playlist “" + saved.name + "” (" + saved.track_count + " tracks).";
              if (typeof showPlaylists === "function") showPlaylists();
              loadFacets().catch(() => {});
              return saved.id;
            } catch (error) { note.textContent = "Could not save: " + error.message; return null; }
          }
          $("staging-save").addEventListener("submit", event => { event.preventDefault(); save(); });
          // Pushing saves first, then writes the saved playlist to Spotify.
          $("staging-spotify").addEventListener("click", async () => {
            const id = await save();
            if (id === null) return;
            const note = $("staging-status");
            note.textContent = "Pushing to Spotify…";
            try {
              const pushed = await (await send("/api/playlists/" + id + "/push", {})).json();
              note.textContent = (pushed.created ? "Created" : "Replaced") + " “" + $("staging-name").value + "” on Spotify with " +
                pushed.item_count + " tracks" + (pushed.skipped_without_id ? ", leaving out " + pushed.skipped_without_id + " without a Spotify ID" : "") + ".";
            } catch (error) { note.textContent = "Could not push to Spotify: " + error.message; }
          });
          // The sign-in is asked again when the page gets the focus back: one made in a terminal
          // meanwhile counts without reloading or restarting anything. Only the button changes, so
          // the focus stays where it is.
          const checkSpotify = () => api("/api/spotify").then(spotify => {
            ex.signedIn = spotify.signed_in;
            $("staging-spotify-why").hidden = spotify.signed_in;
            $("staging-spotify").disabled = !ex.staged.length || !ex.signedIn;
          }).catch(() => {});
          checkSpotify();
          window.addEventListener("focus", checkSpotify);
          async function exportAs(format) {
            const note = $("staging-status");
            try {
              const name = $("staging-name").value;
              const response = await send("/api/exports", { format, name, track_ids: ex.staged });
              const blob = await response.blob();
              const disposition = response.headers.get("Content-Disposition") || "";
              const file = (disposition.match(/filename="([^"]+)"/) || [])[1] || "playlist." + format;
              const link = el("a", { href: URL.createObjectURL(blob), download: file });
              document.body.append(link); link.click(); link.remove();
              setTimeout(() => URL.revokeObjectURL(link.href), 60000);
              note.textContent = "Exported " + ex.staged.length + " tracks as " + file + ".";
            } catch (error) { note.textContent = "Could not export: " + error.message; }
          }
          $("staging-m3u").addEventListener("click", () => exportAs("m3u"));
          $("staging-csv").addEventListener("click", () => exportAs("csv"));

          // Opens when its address is asked for or when it scrolls into view.
          const wanted = () => location.hash === "#explorer";
          window.addEventListener("hashchange", () => { if (wanted()) open(); });
          if (wanted()) open();
          if (window.IntersectionObserver) {
            const observer = new IntersectionObserver(entries => {
              if (entries.some(entry => entry.isIntersecting)) { observer.disconnect(); open(); }
            });
            observer.observe($("explorer"));
          }
          window.explorerOpen = open;
        })();
        """
}
