#!/usr/bin/env bash
# Start-up cost of a periodic check: a no-change `pkgctl update` (conditional GET
# of the manifest, 304, nothing to do) against a loopback nginx origin, side by
# side with `curl` making the same conditional request (If-None-Match with the
# manifest's ETag), with hyperfine. Both binaries: the static release build
# (`--static-swift-stdlib`, what the .deb ships) and the default dynamic one.
# Prints hyperfine's medians and pkgctl's ratio to curl.
# Usage: bench/startup.sh [RUNS]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
command -v nginx >/dev/null || scripts/setup --test
command -v hyperfine >/dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq hyperfine >/dev/null; }
scripts/package >/dev/null   # the static, stripped binary the .deb ships, staged under .build-release/deb
swift build -c release --product pkgctl >/dev/null && swift build -c release --product pkgctl-publisher >/dev/null
static=$PWD/.build-release/deb/pkgctl/usr/bin/pkgctl
dynamic=$PWD/.build/release/pkgctl
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-startup-bench.XXXXXX")
chmod 755 "$work"   # nginx workers run as www-data
cleanup() { [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; sleep 0.2; rm -rf "$work"; }
trap cleanup EXIT

"$dynamic" pack sample-bundles/demo/1.0.0 --name demo --version 1.0.0 --out "$work/origin" \
  --route www.example.com/app >/dev/null
chmod -R a+rX "$work/origin"
sleep 1.1   # a manifest polled within a second of being written has no strong validator (no 304)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events {}
http {
  access_log off;
  server { listen 127.0.0.1:$port; root $work/origin; }
}
CONF
nginx -p "$work" -c "$work/nginx.conf"
manifest="http://127.0.0.1:$port/manifest.json"
for i in $(seq 1 50); do curl -sf -o /dev/null "$manifest" && break; sleep 0.1; done

"$static" update --quiet --root "$work/store" --manifest "$manifest"
etag=$(curl -sI "$manifest" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$manifest")" = 304 ]
"$static" update --root "$work/store" --manifest "$manifest" | grep -q "nothing to do"

hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/result.json" \
  -n curl "curl -s -o /dev/null -H 'If-None-Match: $etag' $manifest" \
  -n "pkgctl (static)" "$static update --quiet --root $work/store --manifest $manifest" \
  -n "pkgctl (dynamic)" "$dynamic update --quiet --root $work/store --manifest $manifest" >/dev/null
python3 - "$work/result.json" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
curl = results["curl"]["median"]
print(f"{'command':<18} {'median ms':>10} {'mean ms':>9} {'user ms':>8} {'sys ms':>7} {'x curl':>7}")
for name, r in results.items():
    print(f"{name:<18} {r['median']*1000:>10.2f} {r['mean']*1000:>9.2f} {r['user']*1000:>8.2f} {r['system']*1000:>7.2f} "
          f"{r['median']/curl:>7.2f}")
PY
