extension HTMLPage {
    /// The shared style sheet: the mood report's, which the benchmark report also uses.
    package static let css = """
        :root { --bg: #f7f6f2; --fg: #1f1f24; --muted: #62626b; --card: #ffffff; --line: #d8d7d2; --accent: #3f6fd1;
          --happy: #d99a00; --calm: #2e9d6a; --sad: #4a74d4; --tense: #d2473c; --valence: #c7501e; --energy: #6b3fb8;
          --above: #2e8b57; --below: #c0503a;
          --g0: #3f6fd1; --g1: #e08a00; --g2: #2e9d6a; --g3: #c8417a; --g4: #7a5cc7; --g5: #1f9bb0; --g6: #a3782a; --g7: #d2473c; --g8: #5d8a1f; --g9: #6b6b78; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #131317; --fg: #ececf1; --muted: #a2a2ad; --card: #1d1d23; --line: #3a3a44; --accent: #7ea2ff;
            --happy: #f2c14e; --calm: #5fd39b; --sad: #7ea2ff; --tense: #ff7a6b; --valence: #ff9a6b; --energy: #b99cff;
            --above: #5fd39b; --below: #ff8a70;
            --g0: #7ea2ff; --g1: #ffb547; --g2: #5fd39b; --g3: #ff7eb6; --g4: #b99cff; --g5: #52d1e6; --g6: #d9b36a; --g7: #ff7a6b; --g8: #a8d85a; --g9: #b0b0bd; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        main { max-width: 1080px; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 2rem; margin: 0.5rem 0 0; } h2 { margin: 2.2rem 0 0.6rem; font-size: 1.4rem; } h3 { margin: 0; font-size: 1.1rem; }
        .lede, .meta, figcaption, .note, footer { color: var(--muted); }
        figure { margin: 0 0 1rem; background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 0.75rem; }
        figcaption { font-size: 0.85rem; margin-top: 0.3rem; }
        svg { display: block; width: 100%; height: auto; }
        svg text { fill: var(--fg); font-size: 11px; }
        svg .tick { fill: var(--muted); font-size: 11px; } svg .axis-title { font-size: 12px; } svg .quadrant { font-size: 11px; font-weight: 600; paint-order: stroke; stroke: var(--card); stroke-width: 3px; }
        line.grid { stroke: var(--line); stroke-width: 1; } line.axis { stroke: var(--muted); stroke-width: 1; }
        rect.plot { fill: none; stroke: var(--line); }
        .bar { fill: var(--accent); }
        .line { fill: none; stroke-width: 2; } .line.valence { stroke: var(--valence); } .line.energy { stroke: var(--energy); stroke-dasharray: 5 3; }
        .dot.valence { fill: var(--valence); } .dot.energy { fill: var(--energy); }
        .happy { fill: var(--happy); } .calm { fill: var(--calm); } .sad { fill: var(--sad); } .tense { fill: var(--tense); }
        .above { fill: var(--above); } .below { fill: var(--below); }
        .g0 { fill: var(--g0); background: var(--g0); } .g1 { fill: var(--g1); background: var(--g1); } .g2 { fill: var(--g2); background: var(--g2); }
        .g3 { fill: var(--g3); background: var(--g3); } .g4 { fill: var(--g4); background: var(--g4); } .g5 { fill: var(--g5); background: var(--g5); }
        .g6 { fill: var(--g6); background: var(--g6); } .g7 { fill: var(--g7); background: var(--g7); } .g8 { fill: var(--g8); background: var(--g8); }
        .g9 { fill: var(--g9); background: var(--g9); }
        .faint { fill-opacity: 0.35; } .point { fill-opacity: 0.75; }
        .multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); gap: 1rem; }
        .pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 1rem; }
        .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 1rem; margin-bottom: 1rem; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 0.9rem; }
        .card ul { margin: 0.2rem 0 0; padding-left: 1.2rem; } .card p { margin: 0.4rem 0; }
        .swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 50%; margin-right: 0.4rem; }
        .stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: 0.6rem; margin: 0; }
        .stats div { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 0.5rem 0.7rem; }
        .stats dt { color: var(--muted); font-size: 0.85rem; } .stats dd { margin: 0; font-size: 1.5rem; font-weight: 650; }
        .facts { padding-left: 1.2rem; }
        details { margin-top: 0.4rem; font-size: 0.85rem; } summary { cursor: pointer; color: var(--muted); }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 0.85rem; font-variant-numeric: tabular-nums; }
        th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid var(--line); }
        code { font-size: 0.9em; }
        p, li, dd { overflow-wrap: anywhere; }
        figure.wide { overflow-x: auto; } figure.wide svg { min-width: 600px; }
        @media (max-width: 640px) {
          main { padding: 0.6rem; } h1 { font-size: 1.6rem; }
          svg text { font-size: 13px; } svg .tick { font-size: 12px; } svg .quadrant { font-size: 12px; }
        }
        """
}
