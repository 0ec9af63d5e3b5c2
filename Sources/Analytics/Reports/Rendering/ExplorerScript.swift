/// The inline script and styles of the HTML report's explorer.
///
/// The script is plain ES2017 with no library. It reads the JSON of `#explorer-data` (see
/// `MoodReport.explorerData(_:)`) and:
///
/// - draws the drawn tracks as circles, each with a `<title>`, on the features chosen in
///   `#explorer-x` and `#explorer-y` (tracks without a value for one of them are hidden);
/// - zooms with the wheel and the buttons and pans by dragging, or from the keyboard with the plot
///   focused (arrows, + and −, 0 to reset);
/// - shows a card naming the track, its group and its key features on hover, and opens the track
///   on a click: `https://open.spotify.com/track/ID`, else the `file://` URL of its file;
/// - hides or shows a group from its legend button (`aria-pressed`);
/// - fills each group's table, sorted by a header click (`aria-sort`), whose track links Tab
///   reaches and Enter opens; focusing or hovering a row marks its point;
/// - builds each group's M3U and CSV in the page and downloads them through a `Blob` URL.
///
/// The source has no `]]>` and no `</script`, so it sits in a CDATA section of the XHTML page.
enum ExplorerScript {
    static let source = #"""
        (function () {
          "use strict";
          var dataNode = document.getElementById("explorer-data");
          var plot = document.getElementById("explorer-plot");
          if (!dataNode || !plot) { return; }
          var data = JSON.parse(dataNode.textContent);
          var tracks = data.tracks;
          var ID = 0, NAME = 1, ARTISTS = 2, SPOTIFY = 3, FILE = 4, DURATION = 5, GROUP = 6, DISTANCE = 7, DRAWN = 8, VALUES = 9;
          var SVG = "http://www.w3.org/2000/svg";
          var ROWS = 100;
          var clip = plot.querySelector("#explorer-clip rect");
          var left = +clip.getAttribute("x"), top = +clip.getAttribute("y");
          var width = +clip.getAttribute("width"), height = +clip.getAttribute("height");
          var box = plot.viewBox.baseVal;
          var pointsLayer = plot.querySelector(".explorer-points");
          var ticksLayer = plot.querySelector(".explorer-ticks");
          var selectX = document.getElementById("explorer-x");
          var selectY = document.getElementById("explorer-y");
          var card = document.getElementById("explorer-card");
          var hiddenGroups = {};
          var circles = {};
          var view = null;
          var marked = null;

          function count(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009"); }
          function label(t) {
            var name = t[NAME] || "(untitled)";
            return t[ARTISTS].length ? t[ARTISTS].join(", ") + " \u2013 " + name : name;
          }
          function fileURL(path) {
            if (!path || path.charAt(0) !== "/") { return null; }
            return "file://" + path.split("/").map(encodeURIComponent).join("/");
          }
          function link(t) {
            if (t[SPOTIFY]) { return "https://open.spotify.com/track/" + t[SPOTIFY]; }
            return fileURL(t[FILE]);
          }
          function open(t) {
            var url = link(t);
            if (url) { window.open(url, "_blank", "noopener"); }
          }
          function isUnit(f) { return data.units[f] === "0\u20131"; }
          function axisTitle(f) { return isUnit(f) ? data.features[f] : data.features[f] + " (" + data.units[f] + ")"; }
          // As the rest of the report: a real minus sign, and an en dash for a missing value.
          function format(f, v) {
            if (v === null) { return "\u2013"; }
            return v.toFixed(isUnit(f) ? 3 : 1).replace("-", "\u2212");
          }

          // Extents, with 5% of padding for features without a fixed 0–1 range.
          function extent(f) {
            if (isUnit(f)) { return [0, 1]; }
            var low = Infinity, high = -Infinity;
            for (var i = 0; i < tracks.length; i++) {
              var v = tracks[i][VALUES + f];
              if (v === null) { continue; }
              if (v < low) { low = v; }
              if (v > high) { high = v; }
            }
            if (low > high) { return [0, 1]; }
            if (low === high) { low -= 1; high += 1; }
            var pad = (high - low) * 0.05;
            return [low - pad, high + pad];
          }
          function resetView() {
            var ex = extent(+selectX.value), ey = extent(+selectY.value);
            view = { x0: ex[0], x1: ex[1], y0: ey[0], y1: ey[1] };
          }
          function px(v) { return left + (v - view.x0) / (view.x1 - view.x0) * width; }
          function py(v) { return top + (view.y1 - v) / (view.y1 - view.y0) * height; }

          function niceTicks(low, high) {
            var span = high - low, step = Math.pow(10, Math.floor(Math.log10(span / 5)));
            if (!(step > 0) || !isFinite(step)) { return []; }
            var err = span / 5 / step;
            if (err >= 7.5) { step *= 10; } else if (err >= 3.5) { step *= 5; } else if (err >= 1.5) { step *= 2; }
            var ticks = [];
            for (var t = Math.ceil(low / step) * step; t <= high + step * 1e-9; t += step) { ticks.push(t); }
            var digits = Math.min(20, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
            return ticks.map(function (t) { return { value: t, text: (Math.abs(t) < step / 2 ? 0 : t).toFixed(digits) }; });
          }
          function svgElement(name, attributes, text) {
            var node = document.createElementNS(SVG, name);
            for (var key in attributes) { node.setAttribute(key, attributes[key]); }
            if (text !== undefined) { node.textContent = text; }
            return node;
          }
          function drawTicks(fx, fy) {
            ticksLayer.textContent = "";
            niceTicks(view.x0, view.x1).forEach(function (tick) {
              var x = px(tick.value);
              ticksLayer.appendChild(svgElement("line", { "class": "grid", x1: x, x2: x, y1: top, y2: top + height }));
              ticksLayer.appendChild(svgElement("text", { "class": "tick", x: x, y: top + height + 14, "text-anchor": "middle" }, tick.text));
            });
            niceTicks(view.y0, view.y1).forEach(function (tick) {
              var y = py(tick.value);
              ticksLayer.appendChild(svgElement("line", { "class": "grid", x1: left, x2: left + width, y1: y, y2: y }));
              ticksLayer.appendChild(svgElement("text", { "class": "tick", x: left - 4, y: y + 4, "text-anchor": "end" }, tick.text));
            });
            document.getElementById("explorer-x-title").textContent = axisTitle(fx) + " \u2192";
            document.getElementById("explorer-y-title").textContent = axisTitle(fy) + " \u2192";
          }

          function draw() {
            var fx = +selectX.value, fy = +selectY.value;
            for (var index in circles) {
              var t = tracks[index], circle = circles[index];
              var x = t[VALUES + fx], y = t[VALUES + fy];
              if (x === null || y === null || hiddenGroups[t[GROUP]]) {
                circle.style.display = "none";
                continue;
              }
              circle.style.display = "";
              circle.setAttribute("cx", px(x).toFixed(2));
              circle.setAttribute("cy", py(y).toFixed(2));
            }
            drawTicks(fx, fy);
            if (marked !== null) { showCard(marked); }
          }
          // Wheel and drag redraw at most once a frame, and within 50 ms where no frames come.
          var pending = false;
          function drawSoon() {
            if (pending) { return; }
            pending = true;
            var done = function () {
              if (!pending) { return; }
              pending = false;
              draw();
            };
            if (window.requestAnimationFrame) { window.requestAnimationFrame(done); }
            setTimeout(done, 50);
          }

          // Points, each with its title for screen readers and native tooltips.
          for (var i = 0; i < tracks.length; i++) {
            var t = tracks[i];
            if (!t[DRAWN]) { continue; }
            var group = data.groups[t[GROUP]];
            var circle = svgElement("circle", { "class": "point " + group["class"], r: 3, "data-index": i, "data-id": t[ID] });
            circle.appendChild(svgElement("title", {}, label(t) + " (" + group.name + ")"));
            pointsLayer.appendChild(circle);
            circles[i] = circle;
          }

          // The hover card.
          function cardLine(text, className) {
            var line = document.createElement("div");
            if (className) { line.className = className; }
            line.textContent = text;
            return line;
          }
          function showCard(index) {
            var t = tracks[index], circle = circles[index];
            card.textContent = "";
            card.appendChild(cardLine(label(t), "card-title"));
            var group = document.createElement("div");
            var swatch = document.createElement("span");
            swatch.className = "swatch " + data.groups[t[GROUP]]["class"];
            group.appendChild(swatch);
            group.appendChild(document.createTextNode(data.groups[t[GROUP]].name));
            card.appendChild(group);
            var shown = [+selectX.value, +selectY.value];
            ["valence", "energy", "danceability", "tempo"].forEach(function (name) {
              var f = data.features.indexOf(name);
              if (f >= 0 && shown.indexOf(f) < 0) { shown.push(f); }
            });
            card.appendChild(cardLine(shown.map(function (f) { return data.features[f] + " " + format(f, t[VALUES + f]); }).join(" \u00b7 ")));
            var url = link(t);
            card.appendChild(cardLine(url ? (t[SPOTIFY] ? "Click to open on Spotify" : "Click to open the file") : "No Spotify ID or file to open", "card-hint"));
            card.hidden = false;
            if (!circle || circle.style.display === "none") {
              card.style.left = "0px";
              card.style.top = "0px";
              return;
            }
            var rect = plot.getBoundingClientRect(), area = plot.parentNode.getBoundingClientRect();
            var scale = rect.width / box.width;
            var x = rect.left - area.left + (+circle.getAttribute("cx")) * scale;
            var y = rect.top - area.top + (+circle.getAttribute("cy")) * scale;
            var cardWidth = card.offsetWidth;
            card.style.left = Math.max(0, x + 12 + cardWidth > area.width ? x - 12 - cardWidth : x + 12) + "px";
            card.style.top = Math.max(0, y - 12) + "px";
          }
          function mark(index) {
            unmark();
            marked = index;
            var circle = circles[index];
            if (circle) {
              circle.classList.add("marked");
              pointsLayer.appendChild(circle);
            }
            showCard(index);
          }
          function unmark() {
            if (marked !== null && circles[marked]) { circles[marked].classList.remove("marked"); }
            marked = null;
            card.hidden = true;
          }
          function pointIndex(event) {
            var target = event.target;
            if (target && target.nodeName === "title") { target = target.parentNode; }
            return target && target.getAttribute && target.hasAttribute("data-index") ? +target.getAttribute("data-index") : null;
          }
          pointsLayer.addEventListener("mouseover", function (event) {
            var index = pointIndex(event);
            if (index !== null) { mark(index); }
          });
          pointsLayer.addEventListener("mouseout", function (event) {
            if (pointIndex(event) !== null) { unmark(); }
          });

          // Zoom and pan.
          function zoom(factor, cx, cy) {
            var x = view.x0 + (cx - left) / width * (view.x1 - view.x0);
            var y = view.y1 - (cy - top) / height * (view.y1 - view.y0);
            view = {
              x0: x - (x - view.x0) / factor, x1: x + (view.x1 - x) / factor,
              y0: y - (y - view.y0) / factor, y1: y + (view.y1 - y) / factor
            };
          }
          function pan(dx, dy) {
            var sx = (view.x1 - view.x0) / width * dx, sy = (view.y1 - view.y0) / height * dy;
            view = { x0: view.x0 - sx, x1: view.x1 - sx, y0: view.y0 + sy, y1: view.y1 + sy };
          }
          function toView(event) {
            var rect = plot.getBoundingClientRect();
            return { x: (event.clientX - rect.left) * box.width / rect.width, y: (event.clientY - rect.top) * box.height / rect.height };
          }
          plot.addEventListener("wheel", function (event) {
            event.preventDefault();
            var at = toView(event);
            zoom(Math.exp(-event.deltaY * 0.002), at.x, at.y);
            drawSoon();
          }, { passive: false });
          var drag = null, dragged = false;
          plot.addEventListener("mousedown", function (event) {
            if (event.button !== 0) { return; }
            drag = toView(event);
            dragged = false;
          });
          window.addEventListener("mousemove", function (event) {
            if (!drag) { return; }
            var at = toView(event);
            if (Math.abs(at.x - drag.x) + Math.abs(at.y - drag.y) > 3) { dragged = true; }
            if (!dragged) { return; }
            pan(at.x - drag.x, at.y - drag.y);
            drag = at;
            plot.classList.add("dragging");
            drawSoon();
          });
          window.addEventListener("mouseup", function () {
            drag = null;
            plot.classList.remove("dragging");
          });
          pointsLayer.addEventListener("click", function (event) {
            var index = pointIndex(event);
            if (index !== null && !dragged) { open(tracks[index]); }
          });
          document.getElementById("explorer-zoom-in").addEventListener("click", function () {
            zoom(1.5, left + width / 2, top + height / 2);
            draw();
          });
          document.getElementById("explorer-zoom-out").addEventListener("click", function () {
            zoom(1 / 1.5, left + width / 2, top + height / 2);
            draw();
          });
          document.getElementById("explorer-reset").addEventListener("click", function () {
            resetView();
            draw();
          });
          plot.addEventListener("keydown", function (event) {
            var step = 40;
            switch (event.key) {
              case "ArrowLeft": pan(step, 0); break;
              case "ArrowRight": pan(-step, 0); break;
              case "ArrowUp": pan(0, step); break;
              case "ArrowDown": pan(0, -step); break;
              case "+": case "=": zoom(1.5, left + width / 2, top + height / 2); break;
              case "-": zoom(1 / 1.5, left + width / 2, top + height / 2); break;
              case "0": resetView(); break;
              default: return;
            }
            event.preventDefault();
            draw();
          });
          [selectX, selectY].forEach(function (select) {
            select.addEventListener("change", function () {
              resetView();
              draw();
            });
          });

          // The legend hides and shows groups.
          Array.prototype.forEach.call(document.querySelectorAll("#explorer-legend button"), function (button) {
            button.addEventListener("click", function () {
              var group = +button.getAttribute("data-group");
              hiddenGroups[group] = !hiddenGroups[group];
              button.setAttribute("aria-pressed", hiddenGroups[group] ? "false" : "true");
              draw();
            });
          });

          // One sortable table per group.
          var members = data.groups.map(function () { return []; });
          tracks.forEach(function (t, index) { members[t[GROUP]].push(index); });
          function sortValue(index, key) {
            var t = tracks[index];
            if (key === "track") { return label(t).toLowerCase(); }
            if (key === "distance") { return t[DISTANCE]; }
            return t[VALUES + (+key)];
          }
          function sorted(group, key, direction) {
            return members[group].slice().sort(function (a, b) {
              var va = sortValue(a, key), vb = sortValue(b, key);
              if (va === null || vb === null) {
                if (va !== vb) { return va === null ? 1 : -1; }
              } else if (va !== vb) {
                if (key === "track") { return direction * va.localeCompare(vb); }
                return direction * (va - vb);
              }
              return tracks[a][ID] - tracks[b][ID];
            });
          }
          var tables = {};
          Array.prototype.forEach.call(document.querySelectorAll("table.explorer-table"), function (table) {
            var group = +table.getAttribute("data-group");
            var details = table.closest("details");
            var start = table.querySelector("th[aria-sort=ascending] button");
            var state = {
              table: table, group: group, key: start ? start.getAttribute("data-sort") : "track", direction: 1,
              limit: ROWS, note: details.querySelector(".explorer-rows"), more: details.querySelector(".explorer-more")
            };
            tables[group] = state;
            Array.prototype.forEach.call(table.querySelectorAll("th button"), function (button) {
              button.addEventListener("click", function () {
                var key = button.getAttribute("data-sort");
                state.direction = key === state.key ? -state.direction : 1;
                state.key = key;
                Array.prototype.forEach.call(table.querySelectorAll("th"), function (th) {
                  th.setAttribute("aria-sort", "none");
                });
                button.parentNode.setAttribute("aria-sort", state.direction > 0 ? "ascending" : "descending");
                fill(state);
              });
            });
            state.more.addEventListener("click", function () {
              state.limit = Infinity;
              fill(state);
            });
            var body = table.tBodies[0];
            body.addEventListener("focusin", function (event) { rowEvent(event, mark); });
            body.addEventListener("mouseover", function (event) { rowEvent(event, mark); });
            body.addEventListener("focusout", unmark);
            body.addEventListener("mouseleave", unmark);
            fill(state);
          });
          function rowEvent(event, action) {
            var row = event.target.closest("tr");
            if (row && row.hasAttribute("data-index")) { action(+row.getAttribute("data-index")); }
          }
          function fill(state) {
            var order = sorted(state.group, state.key, state.direction);
            state.order = order;
            var body = state.table.tBodies[0];
            var rows = document.createDocumentFragment();
            var shown = Math.min(order.length, state.limit);
            for (var r = 0; r < shown; r++) {
              var t = tracks[order[r]];
              var row = document.createElement("tr");
              row.setAttribute("data-index", order[r]);
              var cell = document.createElement("td");
              var url = link(t);
              var name = document.createElement(url ? "a" : "span");
              if (url) {
                name.href = url;
                name.target = "_blank";
                name.rel = "noopener";
              } else {
                name.tabIndex = 0;
              }
              name.textContent = label(t);
              cell.appendChild(name);
              row.appendChild(cell);
              for (var f = 0; f < data.features.length; f++) {
                row.appendChild(numberCell(format(f, t[VALUES + f])));
              }
              if (data.hasDistance) { row.appendChild(numberCell(t[DISTANCE] === null ? "\u2013" : t[DISTANCE].toFixed(3))); }
              rows.appendChild(row);
            }
            body.textContent = "";
            body.appendChild(rows);
            state.note.textContent = shown < order.length
              ? "Showing " + count(shown) + " of " + count(order.length) + " tracks."
              : count(order.length) + (order.length === 1 ? " track." : " tracks.");
            state.more.hidden = shown >= order.length;
          }
          function numberCell(text) {
            var cell = document.createElement("td");
            cell.className = "number";
            cell.textContent = text;
            return cell;
          }

          // Downloads, built from the data in the table's order.
          function singleLine(text) { return String(text).replace(/[\r\n]+/g, " "); }
          function m3u(group, order) {
            var lines = ["#EXTM3U", "#PLAYLIST:" + singleLine(data.groups[group].name)];
            order.forEach(function (index) {
              var t = tracks[index];
              var seconds = t[DURATION] === null ? -1 : Math.floor((t[DURATION] + 500) / 1000);
              var title = (t[ARTISTS].length ? t[ARTISTS].join(", ") + " - " : "") + t[NAME];
              lines.push("#EXTINF:" + seconds + "," + singleLine(title));
              lines.push(t[FILE] ? singleLine(t[FILE]) : t[SPOTIFY] ? "spotify:track:" + t[SPOTIFY] : "# local track " + t[ID] + ": not on Spotify");
            });
            return lines.join("\n") + "\n";
          }
          function quoted(text) { return "\"" + String(text).replace(/"/g, "\"\"") + "\""; }
          function csv(order) {
            var lines = [data.csvColumns.join(",")];
            order.forEach(function (index) {
              var t = tracks[index];
              lines.push(data.csvColumns.map(function (column) {
                switch (column) {
                  case "Track URI": return t[SPOTIFY] ? "spotify:track:" + t[SPOTIFY] : "";
                  case "Track Name": return quoted(t[NAME]);
                  case "Album Name": case "Genres": case "Record Label": return quoted("");
                  case "Artist Name(s)": return quoted(t[ARTISTS].join(";"));
                  case "Duration (ms)": return t[DURATION] === null ? "" : String(t[DURATION]);
                }
                var f = data.features.indexOf(column.toLowerCase().replace(/ /g, "_"));
                return f >= 0 && t[VALUES + f] !== null ? String(t[VALUES + f]) : "";
              }).join(","));
            });
            return lines.join("\n") + "\n";
          }
          function slug(text) {
            return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "tracks";
          }
          Array.prototype.forEach.call(document.querySelectorAll("button[data-download]"), function (button) {
            button.addEventListener("click", function () {
              var group = +button.getAttribute("data-group");
              var kind = button.getAttribute("data-download");
              var order = tables[group] ? tables[group].order : members[group];
              var text = kind === "m3u" ? m3u(group, order) : csv(order);
              var blob = new Blob([text], { type: kind === "m3u" ? "audio/x-mpegurl" : "text/csv" });
              var url = URL.createObjectURL(blob);
              var anchor = document.createElement("a");
              anchor.href = url;
              anchor.download = (group + 1) + "-" + slug(data.groups[group].name) + "." + kind;
              document.body.appendChild(anchor);
              anchor.click();
              anchor.remove();
              setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
            });
          });

          resetView();
          draw();
          document.getElementById("explorer").classList.add("ready");
        })();
        """#

    /// The explorer's styles, added to the page's when it has an explorer.
    static let css = """
        .explorer-controls { display: flex; flex-wrap: wrap; gap: 0.6rem 1rem; align-items: center; margin: 0.4rem 0; }
        .explorer-controls select, .explorer-controls button, .explorer-legend button, .downloads button, .explorer-more {
          font: inherit; font-size: 0.9rem; color: var(--fg); background: var(--card); border: 1px solid var(--line);
          border-radius: 8px; padding: 0.2rem 0.6rem; cursor: pointer; }
        .zoom { display: inline-flex; gap: 0.3rem; }
        .explorer-plot-area { position: relative; background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 0.5rem; }
        .explorer-plot { cursor: grab; } .explorer-plot.dragging { cursor: grabbing; }
        .explorer-plot:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
        .explorer-plot .point { fill-opacity: 0.75; cursor: pointer; }
        .explorer-plot .point.marked { stroke: var(--fg); stroke-width: 2; fill-opacity: 1; r: 6; }
        .explorer-card { position: absolute; z-index: 2; max-width: 20rem; pointer-events: none; background: var(--card);
          border: 1px solid var(--line); border-radius: 10px; padding: 0.5rem 0.7rem; font-size: 0.85rem;
          box-shadow: 0 4px 16px rgba(0, 0, 0, 0.18); }
        .explorer-card .card-title { font-weight: 650; } .explorer-card .card-hint { color: var(--muted); }
        .explorer-legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.4rem; padding: 0; margin: 0.6rem 0 0; }
        .explorer-legend button[aria-pressed="false"] { opacity: 0.45; text-decoration: line-through; }
        .explorer-legend .size { color: var(--muted); }
        .other { fill: var(--g9); background: var(--g9); }
        #explore h3 { margin: 1.4rem 0 0.4rem; }
        .explorer-group { margin: 0.5rem 0; font-size: 1rem; }
        .explorer-group summary { font-weight: 600; color: var(--fg); }
        .explorer-table caption { text-align: left; color: var(--muted); }
        .explorer-table th button { font: inherit; font-weight: 600; color: var(--fg); background: none; border: 0; padding: 0; cursor: pointer; text-align: left; }
        .explorer-table th[aria-sort="ascending"] button::after { content: " ▲"; }
        .explorer-table th[aria-sort="descending"] button::after { content: " ▼"; }
        .explorer-table td.number, .explorer-table th + th { text-align: right; }
        .explorer-table th + th button { text-align: right; }
        .explorer-table td:first-child { min-width: 14rem; }
        .explorer-table tbody tr:hover, .explorer-table tbody tr:focus-within { background: var(--bg); }
        """
}
