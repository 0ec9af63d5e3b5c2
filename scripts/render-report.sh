#!/usr/bin/env bash
# Renders an HTML mood report to PNG screenshots with headless Chromium, to look at it.
#
#   scripts/render-report.sh REPORT.html [OUT_PREFIX]
#
# Writes OUT_PREFIX-desktop.png (1280 px wide) and OUT_PREFIX-phone.png (390 px wide, 2× scale),
# each tall enough for the whole page, in light mode, and OUT_PREFIX-dark.png (desktop, dark mode).
# OUT_PREFIX defaults to the report's path without .html. Needs Debian's `chromium` package
# (apt-get install -y chromium) or $CHROMIUM pointing at a Chromium or Chrome binary.
set -euo pipefail

if [[ $# -lt 1 || ! -f "$1" ]]; then
    echo "usage: $0 REPORT.html [OUT_PREFIX]" >&2
    exit 64
fi
report=$(realpath "$1")
prefix=${2:-${report%.html}}
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [[ -z "$chromium" ]]; then
    echo "Chromium is not installed; install it with: apt-get install -y chromium" >&2
    exit 1
fi

# Chromium in a container runs as root without a user namespace sandbox.
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-extensions
    --disable-dev-shm-usage --user-data-dir="$(mktemp -d)")

shoot() { # shoot OUTPUT WIDTH HEIGHT [extra flags…]
    local output=$1 width=$2 height=$3
    shift 3
    "$chromium" "${flags[@]}" "$@" --window-size="$width,$height" --screenshot="$output" "file://$report" \
        >/dev/null 2>&1
    echo "$output"
}

# The page height grows with the library; render tall enough for the longest report sections.
height=${HEIGHT:-6400}
shoot "$prefix-desktop.png" 1280 "$height"
shoot "$prefix-phone.png" 390 "$((height * 3))" --force-device-scale-factor=1
shoot "$prefix-dark.png" 1280 "$height" --force-dark-mode --blink-settings=preferredColorScheme=0
