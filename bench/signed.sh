#!/usr/bin/env bash
# What signing costs a device, side by side in one run (hyperfine, medians):
#   check-304   the manifest unchanged: curl's conditional request vs pkgctl update,
#               unsigned and signed (a 304 verifies nothing: the cost is process start-up)
#   check-200   the manifest re-fetched every run (its validators forgotten), every
#               package unchanged: pkgctl unsigned vs signed = parse + Ed25519 verify + sequence check
#   install     the demo bundle installed into an empty store: unsigned vs signed
# against a loopback nginx (HTTP), from the release build.
# Usage: bench/signed.sh [RUNS]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
command -v hyperfine >/dev/null && command -v nginx >/dev/null && command -v curl >/dev/null || {
  scripts/setup --test
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get install -y -qq hyperfine curl >/dev/null
}
swift build -c release --product pkgctl >/dev/null && swift build -c release --product pkgctl-publisher >/dev/null
pkgctl=$PWD/.build/release/pkgctl
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-signed-bench.XXXXXX")
chmod 755 "$work"
cleanup() {
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  sleep 0.2; rm -rf "$work"
}
trap cleanup EXIT

"$pkgctl" keygen --out "$work/keys" >/dev/null
for kind in plain signed; do
  sign=(); [ "$kind" = signed ] && sign=(--sign "$work/keys/release.key")
  "$pkgctl" pack sample-bundles/demo/1.0.0 --name demo --version 1.0.0 --out "$work/www/$kind" \
    --route www.example.com/app "${sign[@]}" >/dev/null
done
sleep 1.1   # a manifest polled within a second of being written has no strong validator (no 304)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/tmp-body; proxy_temp_path $work/tmp-proxy; fastcgi_temp_path $work/tmp-fcgi;
  uwsgi_temp_path $work/tmp-uwsgi; scgi_temp_path $work/tmp-scgi;
  server { listen 127.0.0.1:$port; root $work/www; }
}
CONF
nginx -p "$work" -c "$work/nginx.conf"
base="http://127.0.0.1:$port"
plain=(update --quiet --manifest "$base/plain/manifest.json")
signed=(update --quiet --manifest "$base/signed/manifest.json" --trusted-key "$work/keys/release.pub")
"$pkgctl" "${plain[@]}" --root "$work/store-plain"
"$pkgctl" "${signed[@]}" --root "$work/store-signed"
etag=$(curl -sI "$base/signed/manifest.json" | awk 'tolower($1)=="etag:" {print $2}' | tr -d '\r')

# hyperfine NAME... -- runs the named commands (name, command pairs) and prints medians and ratios to the first.
compare() {
  local title=$1 prepare=$2; shift 2
  local args=(-N -w 3 -r "$runs" --export-json "$work/result.json")
  [ -n "$prepare" ] && args+=(--prepare "$prepare")
  while [ $# -gt 0 ]; do args+=(-n "$1" "$2"); shift 2; done
  hyperfine "${args[@]}" >/dev/null
  echo "== $title"
  python3 - "$work/result.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
base = results[0]["median"]
for r in results:
    print(f"  {r['command']:<10} median {r['median'] * 1000:7.2f} ms   ratio to {results[0]['command']}: {r['median'] / base:.2f}x")
PY
}

compare "check-304: manifest unchanged (a 304 verifies nothing)" "" \
  curl "curl -s -o /dev/null -H 'If-None-Match: $etag' $base/signed/manifest.json" \
  unsigned "$pkgctl ${plain[*]} --root $work/store-plain" \
  signed "$pkgctl ${signed[*]} --root $work/store-signed"
compare "check-200: manifest fetched and verified every run, packages unchanged" \
  "rm -f $work/store-plain/state/manifest.json $work/store-signed/state/manifest.json" \
  unsigned "$pkgctl ${plain[*]} --root $work/store-plain" \
  signed "$pkgctl ${signed[*]} --root $work/store-signed"
compare "install: demo 1.0.0 into an empty store" "rm -rf $work/fresh-plain $work/fresh-signed" \
  unsigned "$pkgctl ${plain[*]} --root $work/fresh-plain" \
  signed "$pkgctl ${signed[*]} --root $work/fresh-signed"
