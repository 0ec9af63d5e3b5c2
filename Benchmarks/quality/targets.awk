# Reads the output of compare_quality.sh and prints issue 41's targets per data set, each met or not.
#
#   awk -f Benchmarks/quality/targets.awk Benchmarks/results/quality.txt
#
# - every `eval --label`: this tool ≥ 1.10× the best naive baseline with the paired bootstrap CI of
#   the difference above zero, on plain precision@10 and on precision@10 beyond the seed's artist;
# - discovery: default lists hold at most 2 of 10 by the seed's artist, and reach ≥ 1.10× the best
#   naive rule under the same limits with the CI above zero;
# - vibe names: ≥ 80 % of the genre-evident playlists carry their genre in their vibe's name.
# The ratios are recomputed from the printed precisions, not read rounded. POSIX awk (mawk, BSD).

function verdict(ratio, lower, minimum) { return (ratio >= minimum && lower > 0) ? "met" : "NOT MET" }
function bracket(text,    first, last) {
    # "[+0.0054, +0.0070]" → lower "+0.0054" in LOWER, upper in UPPER
    first = index(text, "["); last = index(text, "]")
    split(substr(text, first + 1, last - first - 1), BOUNDS, ", ")
    LOWER = BOUNDS[1] + 0; UPPER = BOUNDS[2] + 0
}
function flush(    plain, beyond, rest, at) {
    if (label == "") return
    if (!(bestPlain in plainValue) || tool == "") { label = ""; return }
    plain = tool / plainValue[bestPlain]
    beyond = toolBeyond / beyondValue[bestBeyond]
    printf "%-44s plain %.4f vs %.4f (%s): %.2f×, CI [%+.4f, %+.4f] %s\n", \
        set " " label, tool, plainValue[bestPlain], bestPlain, plain, plainLower[bestPlain], plainUpper[bestPlain], \
        verdict(plain, plainLower[bestPlain], 1.10)
    printf "%-44s beyond the artist %.4f vs %.4f (%s): %.2f×, CI [%+.4f, %+.4f] %s\n", \
        "", toolBeyond, beyondValue[bestBeyond], bestBeyond, beyond, beyondLower[bestBeyond], \
        beyondUpper[bestBeyond], verdict(beyond, beyondLower[bestBeyond], 1.10)
    label = ""
}
BEGIN { print "## Targets of issue 41 (≥ 1.10× the best naive baseline, the 95 % CI of the difference above zero)" }
/^## / { flush() }
/^\$ vibes-analyze eval .*--label / {
    flush()
    label = $0; sub(/.*--label /, "", label); sub(/ .*/, "", label)
    set = $0; sub(/.*--db /, "", set); sub(/ .*/, "", set); sub(/.*\//, "", set); sub(/\.sqlite$/, "", set)
    if (index($0, "--weights")) { weights = $0; sub(/.*--weights /, "", weights); sub(/ .*/, "", weights)
        sub(/.*\//, "", weights); label = label " (weights " weights ")" }
    tool = ""; delete plainValue; delete beyondValue
}
label != "" && /^  this tool / { tool = $3 + 0; toolBeyond = $NF + 0 }
label != "" && /^  .*  difference / {
    name = $0; sub(/^  /, "", name); sub(/  +[0-9.]+  difference .*/, "", name)
    value = substr($0, length(name) + 3); sub(/^ +/, "", value)
    # value now starts at the precision: "0.1623  difference +0.0062 [...]  beyond ... [...]"
    split(value, fields, " "); plainValue[name] = fields[1] + 0
    bracket(value); plainLower[name] = LOWER; plainUpper[name] = UPPER
    at = index(value, "beyond the seed's artist ")
    if (at) {
        rest = substr(value, at + length("beyond the seed's artist "))
        split(rest, fields, " "); beyondValue[name] = fields[1] + 0
        bracket(rest); beyondLower[name] = LOWER; beyondUpper[name] = UPPER
    }
}
label != "" && /^this tool beats the best naive baseline \(/ {
    bestPlain = $0; sub(/^[^(]*\(/, "", bestPlain); sub(/\): [0-9.]+×$/, "", bestPlain)
}
label != "" && /^beyond the seed's artist, this tool beats the best naive baseline \(/ {
    bestBeyond = $0; sub(/^[^(]*\(/, "", bestBeyond); sub(/\): [0-9.]+×$/, "", bestBeyond)
}
/^discovery .*: [0-9]+ seed tracks; by the seed's artist/ {
    flush()
    data = $2; sub(/:$/, "", data); most = $NF + 0
    printf "%-44s by the seed's artist, most of 10: %d %s\n", "discovery " data, most, (most <= 2 ? "met" : "NOT MET")
}
/^discovery .*: this tool − / {
    data = $2; sub(/:$/, "", data); ratio = $NF; sub(/×$/, "", ratio)
    bracket($0)
    printf "%-44s diversified lists %s× the best naive rule, CI [%+.4f, %+.4f] %s\n", "", ratio, LOWER, UPPER, \
        verdict(ratio + 0, LOWER, 1.10)
}
/ genre-evident playlists carry their genre in the vibe's name$/ {
    flush()
    printf "%-44s %d of %d genre-evident playlists carry their genre (%.0f %%) %s\n", "vibe names", $1, $3, \
        100 * $1 / $3, (100 * $1 >= 80 * $3 ? "met" : "NOT MET (target 80 %)")
}
/^genre-evident playlists whose genre the tags know: / {
    printf "%-44s of those whose genre the tags know: %d of %d (%.0f %%) %s\n", "", $(NF - 4), $(NF - 2), \
        100 * $(NF - 4) / $(NF - 2), (100 * $(NF - 4) >= 80 * $(NF - 2) ? "met" : "NOT MET")
}
END { flush() }
