#!/usr/bin/env bash
# Opens a report.html in headless Chromium as a reader's browser would, and checks it:
#   - the page loads with no console message at all (it has no script, and must fetch nothing);
#   - every plot is there: one inline <svg> figure per SVG file written beside the page;
#   - the summary comes first;
# then saves a screenshot of the page (results/report-html.png by default).
# Usage: scripts/check-report-html.sh DIR/report.html [SCREENSHOT.png]
set -euo pipefail
page="$(realpath "${1:?usage: $0 DIR/report.html [SCREENSHOT.png]}")"
shot="${2:-results/report-html.png}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
    echo "check-report-html: no Chromium (Debian's chromium package) on this machine" >&2
    exit 1
fi
dir="$(dirname "$page")"
mkdir -p "$(dirname "$shot")"
log="$(mktemp)"
dom="$(mktemp)"
trap 'rm -f "$log" "$dom"' EXIT
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
       --disable-extensions --enable-logging=stderr --v=0)
"$browser" "${flags[@]}" --dump-dom "file://$page" >"$dom" 2>"$log"
if grep -E 'CONSOLE|Uncaught|Failed to load|net::ERR' "$log"; then
    echo "check-report-html: the page logged the messages above" >&2
    exit 1
fi
svgs=$(find "$dir" -maxdepth 1 -name '*.svg' | wc -l)
figures=$(grep -o '<figure class="plot">' "$dom" | wc -l)
inline=$(grep -o '<svg' "$dom" | wc -l)
if [ "$figures" -ne "$svgs" ] || [ "$inline" -lt "$svgs" ]; then
    echo "check-report-html: $svgs plots written, $figures figures and $inline inline SVGs in the page" >&2
    exit 1
fi
summary=$(grep -b -o '<h2 id="summary">' "$dom" | head -1 | cut -d: -f1)
first_figure=$(grep -b -o '<figure' "$dom" | head -1 | cut -d: -f1)
if [ -z "$summary" ] || { [ -n "$first_figure" ] && [ "$summary" -gt "$first_figure" ]; }; then
    echo "check-report-html: the summary does not come first" >&2
    exit 1
fi
"$browser" "${flags[@]}" --window-size=1280,4000 --screenshot="$(realpath -m "$shot")" \
    "file://$page" >/dev/null 2>"$log"
[ -s "$shot" ] || { echo "check-report-html: no screenshot was written" >&2; cat "$log" >&2; exit 1; }
echo "check-report-html: $page: $figures plots, no console messages; screenshot $shot"
