#!/usr/bin/env bash
# Open time of two pages, the demo and a real React build (Streamlit 1.66.1's front-end, from
# the wheel scripts/setup --test downloads), in the same WebKit (the hybrid-app example, a fresh
# process and ephemeral context per load, under Xvfb): app:// through PkgCore's
# resolver in the Swift example, app:// through the C ABI in the C example
# (Examples/HybridAppC, over the release library scripts/package builds), vs
# http://127.0.0.1 through `pkgctl serve` vs file:// on the same files; then the same
# three in a second engine, Chromium (Examples/HybridAppQt, Qt WebEngine, the C ABI). "Open time" is the page's own Navigation Timing loadEventEnd: html,
# stylesheet, script and images loaded and the load event run (and, for the React build, React
# mounted). Loads alternate between the kinds; prints the median and p90 per kind and the ratios
# to the same engine's file:// (to its pkgctl serve where file:// never renders the page).
# Usage: bench/webview.sh [LOADS]   (default 20 per kind)
set -euo pipefail
cd "$(dirname "$0")/.."
loads=${1:-20}
scripts/setup --test
swift build -c release --product pkgctl >/dev/null && swift build -c release --product pkgctl-publisher >/dev/null
swift build -c release --package-path Examples/HybridApp >/dev/null
pkgctl=$PWD/.build/release/pkgctl
app=$PWD/Examples/HybridApp/.build/release/hybrid-app
release=(scripts/lib/release-build)
"${release[@]}" --product pkgctl-resolver >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-webview-bench.XXXXXX")
cleanup() {
  [ -n "${serve_pid:-}" ] && kill "$serve_pid" 2>/dev/null || true
  [ -n "${xvfb_pid:-}" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

resolver_prefix=$(scripts/lib/resolver-dev-prefix "$("${release[@]}" --show-bin-path)" "$work/resolver")
mapfile -t resolver_variables <<< "$resolver_prefix"
env "${resolver_variables[@]}" make -s -B -C Examples/HybridAppC \
  LDFLAGS="-Wl,-rpath,$(sed -n 's/^LD_LIBRARY_PATH=//p' <<< "$resolver_prefix")" >/dev/null
app_c=$PWD/Examples/HybridAppC/hybrid-app-c
env "${resolver_variables[@]}" make -s -B -C Examples/HybridAppQt \
  LDFLAGS="-Wl,-rpath,$(sed -n 's/^LD_LIBRARY_PATH=//p' <<< "$resolver_prefix")" >/dev/null
app_qt=$PWD/Examples/HybridAppQt/hybrid-app-qt
"$pkgctl" pack sample-bundles/demo/1.0.0 --name demo --version 1.0.0 --out "$work/origin" --route www.example.com/app >/dev/null
wheel=${XDG_CACHE_HOME:-$HOME/.cache}/pkgctl-test/streamlit-1.66.1-py3-none-any.whl
unzip -q "$wheel" 'streamlit/static/*' -d "$work/wheel"
# Its index.html names its chunks relatively (./static/js/…), so any route serves it.
"$pkgctl" pack "$work/wheel/streamlit/static" --name react --version 1.0.0 --out "$work/origin" --route www.example.com/react >/dev/null
"$pkgctl" update --quiet --root "$work/store" --manifest "file://$work/origin/manifest.json"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$pkgctl" serve --root "$work/store" --port "$port" --default-host www.example.com --offline --quiet >/dev/null 2>&1 &
serve_pid=$!
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$port/app/index.html" && break; sleep 0.1; done

display=:$((90 + RANDOM % 400))
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
sleep 1
export DISPLAY=$display

declare -A route=([demo]=app [react]=react)
# url KIND PAGE: where KIND opens PAGE.
url() {
  case $1 in
    app|appc|appqt) echo "app://www.example.com/${route[$2]}/index.html" ;;
    serve|serveqt) echo "http://127.0.0.1:$port/${route[$2]}/index.html" ;;
    file|fileqt) echo "file://$work/store/packages/$2/current/index.html" ;;
  esac
}
# The wait-for expression records loadEventEnd in the DOM it then prints; the React page's
# only once React has mounted its tree. A kind that never renders a page is reported as such,
# and its engine's ratios are then to pkgctl serve: WebKitGTK runs no module script from a
# file: page (module scripts are fetched in CORS mode), and a Vite build's chunks are all modules.
timing="performance.getEntriesByType('navigation')[0].loadEventEnd > 0 && (document.documentElement.dataset.openMs = performance.getEntriesByType('navigation')[0].loadEventEnd)"
declare -A ready=([demo]="" [react]="document.getElementById('root').childElementCount > 0 && ")
declare -A runner=([app]=$app [appc]=$app_c [serve]=$app [file]=$app [appqt]=$app_qt [serveqt]=$app_qt [fileqt]=$app_qt)
kinds=(app appc serve file appqt serveqt fileqt)
pages=(demo react)
for page in "${pages[@]}"; do
  for kind in "${kinds[@]}"; do : > "$work/$page-$kind.ms"; done
  "$app" --root "$work/store" --offline --dump-dom --wait-for "$timing" "$(url app "$page")" >/dev/null 2>&1  # warm the disk cache
done
for _ in $(seq "$loads"); do
  for page in "${pages[@]}"; do
    for kind in "${kinds[@]}"; do
      # A load that never renders exits non-zero: it is counted (as missing) below.
      { "${runner[$kind]}" --root "$work/store" --offline --dump-dom --timeout 10 --wait-for "${ready[$page]}$timing" \
          "$(url "$kind" "$page")" 2>/dev/null || true; } \
        | sed -n 's/.*data-open-ms="\([0-9.]*\)".*/\1/p' >> "$work/$page-$kind.ms"
    done
  done
done

python3 - "$work" "$loads" <<'PY'
import statistics, sys
work, loads = sys.argv[1], int(sys.argv[2])
def stats(page, kind):
    """The median and p90, or None when no load of the page rendered."""
    values = sorted(float(v) for v in open(f"{work}/{page}-{kind}.ms").read().split())
    if not values:
        return None
    if len(values) != loads:
        sys.exit(f"{page} {kind}: {len(values)} of {loads} loads measured")
    return statistics.median(values), values[int(0.9 * (len(values) - 1))]
rows = [("WebKitGTK", [("app", "app:// (resolver, Swift)"), ("appc", "app:// (resolver, C ABI)"),
                      ("serve", "http:// (pkgctl serve)"), ("file", "file://")]),
        ("Chromium (Qt WebEngine)", [("appqt", "app:// (resolver, C ABI)"), ("serveqt", "http:// (pkgctl serve)"),
                                     ("fileqt", "file://")])]
for page in ["demo", "react"]:
    print(f"{page} page open time, {loads} loads each (loadEventEnd, ms)")
    for engine, kinds in rows:
        base_kind, base_label = next((kind, label.split()[0]) for kind, label in reversed(kinds) if stats(page, kind))
        base_median = stats(page, base_kind)[0]
        print(f" {engine}")
        for kind, label in kinds:
            if not stats(page, kind):
                print(f"  {label:24} never rendered ({loads} loads)")
                continue
            median, p90 = stats(page, kind)
            print(f"  {label:24} median {median:7.1f}  p90 {p90:7.1f}  x{median / base_median:.2f} of {base_label}")
PY
