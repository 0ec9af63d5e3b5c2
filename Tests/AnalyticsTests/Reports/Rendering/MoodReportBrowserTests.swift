import Features
import Foundation
import Testing
import VibesTestSupport

@testable import Analytics

/// The HTML report's explorer in a real browser: headless Chromium loads a copy of the page with a
/// test harness injected, the harness drives the page with real DOM events and writes what it saw
/// as JSON into `<pre id="harness-result">`, and the test reads it from the dumped DOM.
///
/// The product page holds no test code: the harness exists only in the copy.
@Suite(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
struct MoodReportBrowserTests {
    /// Runs before the page's own scripts: records errors, and catches what would leave the page
    /// (opened windows, downloads) so that the test can read it.
    static let recorder = #"""
        <script>//<![CDATA[
        window.__harness = { errors: [], opened: [], downloads: [], blobs: [] };
        window.addEventListener("error", function (event) { __harness.errors.push("error: " + event.message); });
        window.addEventListener("unhandledrejection", function (event) { __harness.errors.push("rejection: " + event.reason); });
        (function () {
          var consoleError = console.error;
          console.error = function () {
            __harness.errors.push("console.error: " + Array.prototype.join.call(arguments, " "));
            return consoleError.apply(console, arguments);
          };
          window.open = function (url) { __harness.opened.push(String(url)); return null; };
          // The text of every Blob is kept as it is made: reading a Blob back is asynchronous I/O,
          // which Chromium's virtual time does not wait for on a loaded host.
          var PageBlob = window.Blob;
          window.Blob = function (parts, options) {
            var blob = new PageBlob(parts, options);
            blob.__text = (parts || []).map(String).join("");
            return blob;
          };
          window.Blob.prototype = PageBlob.prototype;
          var createObjectURL = URL.createObjectURL;
          URL.createObjectURL = function (blob) { __harness.blobs.push(blob); return createObjectURL.call(URL, blob); };
          var click = HTMLAnchorElement.prototype.click;
          HTMLAnchorElement.prototype.click = function () {
            if (this.download) { __harness.downloads.push(this.download); return; }
            return click.call(this);
          };
        })();
        //]]></script>
        """#

    /// Runs after load: `checks` is the body of an async function that fills `result`.
    static func harness(_ checks: String) -> String {
        #"""
        <script>//<![CDATA[
        (function () {
          var result = {};
          function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }
          function mouse(target, type, x, y) {
            target.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, view: window, clientX: x, clientY: y, button: 0 }));
          }
          function centre(element) {
            var rect = element.getBoundingClientRect();
            return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
          }
          function points() { return Array.prototype.slice.call(document.querySelectorAll("#explorer-plot .explorer-points circle")); }
          function positions() {
            var map = {};
            points().forEach(function (p) { map[p.getAttribute("data-id")] = [p.getAttribute("cx"), p.getAttribute("cy"), p.style.display]; });
            return map;
          }
          function rowIDs(table) {
            return Array.prototype.map.call(table.tBodies[0].rows, function (row) {
              return JSON.parse(document.getElementById("explorer-data").textContent).tracks[+row.getAttribute("data-index")][0];
            });
          }
          async function checks() {
        """# + checks + #"""
              }
              function finish() {
                result.errors = window.__harness.errors;
                var pre = document.createElement("pre");
                pre.id = "harness-result";
                pre.textContent = JSON.stringify(result);
                document.body.appendChild(pre);
              }
              window.addEventListener("load", function () {
                setTimeout(function () {
                  checks().catch(function (error) { window.__harness.errors.push("harness: " + error + " " + error.stack); }).then(finish);
                }, 50);
              });
            })();
            //]]></script>
            """#
    }

    /// Loads `html` with the harness running `checks` and returns what the harness recorded.
    private func run(
        _ html: String,
        checks: String,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws -> [String: Any]
    {
        #expect(!html.contains("__harness"), "the product page must hold no test code", sourceLocation: sourceLocation)
        let head = try #require(html.range(of: "<head>"), sourceLocation: sourceLocation)
        var page = html
        page.insert(contentsOf: Self.recorder, at: head.upperBound)
        let body = try #require(page.range(of: "</body>", options: .backwards), sourceLocation: sourceLocation)
        page.insert(contentsOf: Self.harness(checks), at: body.lowerBound)
        return try await withTemporaryDirectory { folder in
            let path = folder + "/report.html"
            try Data(page.utf8).write(to: URL(fileURLWithPath: path))
            let dom = try await HeadlessChromium.dumpDOM(ofFileAt: path)
            let start = try #require(
                dom.range(of: "<pre id=\"harness-result\">"),
                "the harness wrote no result; the page's DOM ends: \(dom.suffix(400))",
                sourceLocation: sourceLocation
            )
            let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
            let text = dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
            let result = try #require(object as? [String: Any], sourceLocation: sourceLocation)
            #expect(result["errors"] as? [String] == [], "errors in the page", sourceLocation: sourceLocation)
            return result
        }
    }

    @Test func hoverClickSortAxesZoomLegendAndDownloadsWork() async throws {
        let report = try ExplorerLibrary.report()
        let list = try #require(report.tracks)
        let danceability = try #require(list.features.firstIndex(of: "danceability"))
        let energy = try #require(list.features.firstIndex(of: "energy"))
        let result = try await run(
            report.renderedHTML(),
            checks: """
                var plot = document.getElementById("explorer-plot");
                var card = document.getElementById("explorer-card");
                result.pointIDs = points().map(function (p) { return +p.getAttribute("data-id"); });
                result.titles = points().map(function (p) { var t = p.querySelector("title"); return t ? t.textContent : null; });

                // Hover and click at the point's position on the screen.
                plot.scrollIntoView();
                var one = document.querySelector('circle[data-id="1"]');
                var at = centre(one);
                var hit = document.elementFromPoint(at.x, at.y);
                result.hitID = hit && hit.getAttribute ? hit.getAttribute("data-id") : null;
                mouse(hit, "mouseover", at.x, at.y);
                result.cardShown = !card.hidden;
                result.card = card.textContent;
                mouse(hit, "mousedown", at.x, at.y);
                mouse(hit, "mouseup", at.x, at.y);
                mouse(hit, "click", at.x, at.y);
                mouse(hit, "mouseout", at.x, at.y);
                result.cardHiddenAfterOut = card.hidden;
                [2, 3, 4].forEach(function (id) {
                  var point = document.querySelector('circle[data-id="' + id + '"]');
                  var c = centre(point);
                  mouse(point, "mousedown", c.x, c.y);
                  mouse(point, "mouseup", c.x, c.y);
                  mouse(point, "click", c.x, c.y);
                });
                result.opened = window.__harness.opened.slice();

                // A drag pans and does not open the track it started on.
                var before = positions();
                mouse(one, "mousedown", at.x, at.y);
                mouse(window, "mousemove", at.x + 60, at.y + 30);
                mouse(window, "mouseup", at.x + 60, at.y + 30);
                mouse(one, "click", at.x + 60, at.y + 30);
                await sleep(100);
                result.dragMoved = positions()["1"][0] !== before["1"][0];
                result.openedAfterDrag = window.__harness.opened.length;
                document.getElementById("explorer-reset").click();
                result.resetRestores = JSON.stringify(positions()) === JSON.stringify(before);

                // Axes: danceability is 0.5 for every track, so all points line up.
                var select = document.getElementById("explorer-x");
                select.value = "\(danceability)";
                select.dispatchEvent(new Event("change", { bubbles: true }));
                var after = positions();
                result.xMoved = Object.keys(after).filter(function (id) { return after[id][0] !== before[id][0]; }).length;
                result.yKept = Object.keys(after).every(function (id) { return after[id][1] === before[id][1]; });
                result.xValues = Object.keys(after).map(function (id) { return after[id][0]; });
                result.xTitle = document.getElementById("explorer-x-title").textContent;
                select.value = "\(list.features.firstIndex(of: "valence")!)";
                select.dispatchEvent(new Event("change", { bubbles: true }));

                // Zoom: the buttons, the wheel (which stops the page from scrolling) and the keyboard.
                document.getElementById("explorer-zoom-in").click();
                var zoomed = positions();
                result.zoomInMoved = zoomed["1"][0] !== before["1"][0];
                document.getElementById("explorer-zoom-out").click();
                result.zoomOutRestores = Math.abs(+positions()["1"][0] - +before["1"][0]) < 0.02;
                var c = centre(plot);
                var wheel = new WheelEvent("wheel", { bubbles: true, cancelable: true, deltaY: -300, clientX: c.x, clientY: c.y });
                plot.dispatchEvent(wheel);
                await sleep(100);
                result.wheelPrevented = wheel.defaultPrevented;
                result.wheelMoved = positions()["1"][0] !== before["1"][0];
                plot.focus();
                plot.dispatchEvent(new KeyboardEvent("keydown", { key: "0", bubbles: true, cancelable: true }));
                result.keyResets = JSON.stringify(positions()) === JSON.stringify(before);

                // The legend hides and shows a group.
                var quiet = document.querySelector('#explorer-legend button[data-group="1"]');
                quiet.click();
                result.hiddenAfterLegend = points().filter(function (p) { return p.style.display === "none"; }).map(function (p) { return +p.getAttribute("data-id"); });
                result.legendPressed = quiet.getAttribute("aria-pressed");
                quiet.click();
                result.shownAgain = points().every(function (p) { return p.style.display !== "none"; });

                // Tables: by distance to the centre first, then by a clicked header, both ways.
                var table = document.querySelector('table.explorer-table[data-group="0"]');
                table.closest("details").open = true;
                result.initialOrder = rowIDs(table);
                var header = table.querySelector('th button[data-sort="\(energy)"]');
                header.click();
                result.ascending = rowIDs(table);
                result.ascendingSort = header.parentNode.getAttribute("aria-sort");
                result.distanceSortAfter = table.querySelector('th button[data-sort="distance"]').parentNode.getAttribute("aria-sort");
                header.click();
                result.descending = rowIDs(table);
                result.descendingSort = header.parentNode.getAttribute("aria-sort");
                table.querySelector('th button[data-sort="distance"]').click();

                // Keyboard: every row has something focusable; focusing it marks the point.
                result.focusable = Array.prototype.map.call(table.tBodies[0].rows, function (row) {
                  var target = row.querySelector("a[href], [tabindex='0']");
                  return target ? (target.getAttribute("href") || "focusable") : null;
                });
                var firstLink = table.tBodies[0].rows[0].querySelector("a[href], [tabindex='0']");
                firstLink.focus();
                result.focusCard = card.hidden ? null : card.textContent;
                result.focusMarked = document.querySelectorAll("circle.marked").length;

                // Downloads, in the table's order.
                document.querySelector('button[data-download="m3u"][data-group="0"]').click();
                document.querySelector('button[data-download="csv"][data-group="0"]').click();
                result.downloads = window.__harness.downloads;
                result.files = [];
                for (var i = 0; i < window.__harness.blobs.length; i++) {
                  result.files.push(window.__harness.blobs[i].__text);
                }
                """
        )
        // Every track drawn, each point with a title.
        #expect(result["pointIDs"] as? [Int] == [1, 2, 3, 4, 5, 6])
        #expect(
            result["titles"] as? [String]
                == (1...6).map {
                    "\(["A", "A", "D", "E", "B", "C"][$0 - 1]) – Song \($0) (\($0 == 3 || $0 == 4 ? "Quiet" : "Loud"))"
                }
        )
        // The hover card names the track under the mouse, its vibe and its features.
        #expect(result["hitID"] as? String == "1")
        #expect(result["cardShown"] as? Bool == true)
        let card = try #require(result["card"] as? String)
        #expect(card.contains("A – Song 1"))
        #expect(card.contains("Loud"))
        #expect(card.contains("valence 0.800") && card.contains("energy 0.900") && card.contains("danceability 0.500"))
        #expect(card.contains("Click to open on Spotify"))
        #expect(result["cardHiddenAfterOut"] as? Bool == true)
        // Clicks open Spotify, else the local file; a track with neither opens nothing.
        #expect(
            result["opened"] as? [String] == [
                "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", "file:///music/My%20Song%20%232.flac",
                "https://open.spotify.com/track/6f807x0ima9a1j3VPbc7VN",
            ]
        )
        #expect(result["dragMoved"] as? Bool == true)
        #expect(result["openedAfterDrag"] as? Int == 3)
        #expect(result["resetRestores"] as? Bool == true)
        // Axes.
        #expect(result["xMoved"] as? Int == 6)
        #expect(result["yKept"] as? Bool == true)
        #expect(Set(result["xValues"] as? [String] ?? []).count == 1)
        #expect(result["xTitle"] as? String == "danceability →")
        // Zoom and pan.
        #expect(result["zoomInMoved"] as? Bool == true)
        #expect(result["zoomOutRestores"] as? Bool == true)
        #expect(result["wheelPrevented"] as? Bool == true)
        #expect(result["wheelMoved"] as? Bool == true)
        #expect(result["keyResets"] as? Bool == true)
        // Legend.
        #expect(result["hiddenAfterLegend"] as? [Int] == [3, 4])
        #expect(result["legendPressed"] as? String == "false")
        #expect(result["shownAgain"] as? Bool == true)
        // Loud is tracks 2, 1, 5, 6 by distance (0.2, 0.5, 0.9, 1.7); by energy 0.6, 0.8, 0.9, 0.9
        // (ties by ID) and the reverse.
        #expect(result["initialOrder"] as? [Int] == [2, 1, 5, 6])
        #expect(result["ascending"] as? [Int] == [2, 5, 1, 6])
        #expect(result["ascendingSort"] as? String == "ascending")
        #expect(result["distanceSortAfter"] as? String == "none")
        #expect(result["descending"] as? [Int] == [1, 6, 5, 2])
        #expect(result["descendingSort"] as? String == "descending")
        #expect(
            result["focusable"] as? [String] == [
                "file:///music/My%20Song%20%232.flac", "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC",
                "https://open.spotify.com/track/0VjIjW4GlUZAMYd2vXMi3b", "focusable",
            ]
        )
        #expect((result["focusCard"] as? String)?.contains("A – Song 2") == true)
        #expect(result["focusMarked"] as? Int == 1)
        // Downloads.
        #expect(result["downloads"] as? [String] == ["1-loud.m3u", "1-loud.csv"])
        let files = try #require(result["files"] as? [String])
        #expect(files.count == 2)
        #expect(
            files.first == """
                #EXTM3U
                #PLAYLIST:Loud
                #EXTINF:-1,A - Song 2
                /music/My Song #2.flac
                #EXTINF:215,A - Song 1
                spotify:track:4uLU6hMCjMI75M1A2tKUQC
                #EXTINF:-1,B - Song 5
                spotify:track:0VjIjW4GlUZAMYd2vXMi3b
                #EXTINF:-1,C - Song 6
                # local track 6: not on Spotify

                """
        )
        let csv = try #require(files.last?.split(separator: "\n").map(String.init))
        #expect(csv.first == PlaylistExport.exportifyColumns.joined(separator: ","))
        #expect(csv.count == 5)
        #expect(csv[1] == #","Song 2","","A",,,,,,,"","",0.5,0.6,,-7,,,,,,0.9,,"#)
        #expect(csv[2].hasPrefix(#"spotify:track:4uLU6hMCjMI75M1A2tKUQC,"Song 1","","A",,215400,"#))
    }

    /// More tracks than the scatter draws: the page draws the sample (here 2,000 of 2,400 points,
    /// a tenth of the real limit so that the test stays quick), keeps every track in the tables,
    /// shows a whole table on demand and answers an axis change without errors.
    @Test func aSampledLibraryKeepsEveryTrackInItsTables() async throws {
        var input = try LargeLibrary.input(trackCount: 2_400)
        input.includesTrackList = true
        input.trackListPointLimit = 2_000
        let report = try MoodReport(input)
        let html = report.renderedHTML()
        let result = try await run(
            html,
            checks: """
                result.points = points().length;
                result.rows = Array.prototype.map.call(document.querySelectorAll("table.explorer-table"), function (table) { return table.tBodies[0].rows.length; });
                result.notes = Array.prototype.map.call(document.querySelectorAll(".explorer-rows"), function (note) { return note.textContent; });
                var more = document.querySelector('details[data-group="0"] .explorer-more');
                more.click();
                result.allRows = document.querySelector('table.explorer-table[data-group="0"]').tBodies[0].rows.length;
                var select = document.getElementById("explorer-y");
                select.value = "0";
                select.dispatchEvent(new Event("change", { bubbles: true }));
                result.yTitle = document.getElementById("explorer-y-title").textContent;
                // The result is all the test reads; the rest of the page need not be serialised.
                document.querySelector("main").remove();
                """
        )
        let list = try #require(report.tracks)
        #expect(result["points"] as? Int == 2_000)
        #expect(result["rows"] as? [Int] == list.groups.map { Swift.min($0.tracks, 100) })
        #expect(
            result["notes"] as? [String]
                == list.groups.map {
                    "Showing 100 of \(ReportFormatting.count($0.tracks)) tracks."
                }
        )
        #expect(result["allRows"] as? Int == list.groups[0].tracks)
        #expect(result["yTitle"] as? String == "danceability →")
        #expect(html.contains("The scatter draws 2\u{2009}000 of the 2\u{2009}400 tracks"))
    }
}

/// A library of `trackCount` tracks with deterministic pseudo-random features in four vibes.
enum LargeLibrary {
    static func input(trackCount: Int) throws -> MoodReport.Input {
        var table = FeatureTable()
        var tracks: [Int64: TrackCredit] = [:]
        var assignments: [Int64: ReportRun.Assignment] = [:]
        var rng = SplitMix64(seed: 7)
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        for index in 0..<trackCount {
            let id = Int64(index + 1)
            let valence = unit()
            let energy = unit()
            table.append(
                trackID: id,
                features: AudioFeatures(
                    danceability: unit(),
                    energy: energy,
                    loudness: -30 * unit(),
                    speechiness: unit() * 0.3,
                    acousticness: unit(),
                    instrumentalness: unit(),
                    liveness: unit(),
                    valence: valence,
                    tempo: 60 + 120 * unit()
                )
            )
            tracks[id] = TrackCredit(id: id, name: "Song \(id)", artists: ["Artist \(index % 500)"])
            let cluster = (valence >= 0.5 ? 1 : 0) + (energy >= 0.5 ? 2 : 0)
            assignments[id] = ReportRun.Assignment(cluster: cluster, distance: unit())
        }
        let sizes = (0..<4).map { cluster in assignments.values.count { $0.cluster == cluster } }
        let vibes = (0..<4).map {
            VibeProfile(
                cluster: $0,
                name: ["Dark calm", "Bright calm", "Dark loud", "Bright loud"][$0],
                mood: .calm,
                size: sizes[$0],
                share: Double(sizes[$0]) / Double(trackCount),
                means: [:],
                zScores: [:]
            )
        }
        return try SmallLibrary.input(table: table, tracks: tracks, vibes: vibes, assignments: assignments)
    }
}
