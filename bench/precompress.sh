#!/usr/bin/env bash
# Bytes on the wire with `pack --precompress`: what a browser downloads for a
# whole site (every file fetched once, the sum of the response bodies) from
#   pkgctl serve, a plain pack                 no Accept-Encoding (identity)
#   pkgctl serve, a --precompress pack         Accept-Encoding: br (Chromium over
#                                              https) and "gzip, deflate" (over http)
#   nginx, gzip on (level 1, on the fly)       "gzip, deflate", gzip_types = the
#                                              text types pack --precompress covers
# over loopback HTTP with curl, for two sites: the sample demo
# (sample-bundles/demo/1.1.0) and a MkDocs site with the Material theme built in
# a throwaway venv from PyPI (pinned versions; its pages are this repository's
# README.md and BENCHMARKS.md). Prints, per site, the file counts and bytes, the
# table (response bodies; headers summed apart; and without the source maps a
# browser fetches only for devtools) with the ratios, then per type where the
# bytes are and the files where pkgctl sends more than nginx; and the time of
# `pack` with and without --precompress for the MkDocs site (median of RUNS).
# Usage: bench/precompress.sh [RUNS]   (default 5; PKGCTL=path/to/pkgctl skips the build)
set -euo pipefail
[ -n "${PKGCTL:-}" ] && PKGCTL=$(realpath "$PKGCTL")
cd "$(dirname "$0")/.."
runs=${1:-5}
mkdocs_version=${MKDOCS_VERSION:-1.6.1}
material_version=${MKDOCS_MATERIAL_VERSION:-9.8.1}
command -v nginx >/dev/null && command -v curl >/dev/null || scripts/setup --test
if [ -n "${PKGCTL:-}" ]; then
  pkgctl=$PKGCTL
else
  swift build -c release --product pkgctl >/dev/null && swift build -c release --product pkgctl-publisher >/dev/null
  pkgctl=$PWD/.build/release/pkgctl
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-precompress-bench.XXXXXX")
chmod 755 "$work"   # nginx workers run as www-data
cleanup() {
  [ -n "${serve_pid:-}" ] && kill "$serve_pid" 2>/dev/null || true
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  sleep 0.2; rm -rf "$work"
}
trap cleanup EXIT

# The MkDocs site.
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check \
  "mkdocs==$mkdocs_version" "mkdocs-material==$material_version" >&2
echo "MkDocs site built with: $("$work/venv/bin/pip" freeze --disable-pip-version-check \
  | grep -iE '^(mkdocs|mkdocs-material|pymdown-extensions|pygments|markdown)==' | paste -sd ' ')"
(
  cd "$work"
  NO_MKDOCS_2_WARNING=1 venv/bin/mkdocs new mkdocs-src >/dev/null 2>&1
  cp "$OLDPWD/README.md" mkdocs-src/docs/pkgctl.md
  cp "$OLDPWD/BENCHMARKS.md" mkdocs-src/docs/benchmarks.md
  cat > mkdocs-src/mkdocs.yml <<'YML'
site_name: pkgctl
site_url: https://docs.example.com/
nav:
  - Home: index.md
  - pkgctl: pkgctl.md
  - Benchmarks: benchmarks.md
theme:
  name: material
  features: [navigation.sections, content.code.copy]
markdown_extensions:
  - admonition
  - tables
  - toc:
      permalink: true
  - pymdownx.highlight
  - pymdownx.superfences
YML
  cd mkdocs-src
  NO_MKDOCS_2_WARNING=1 ../venv/bin/mkdocs build --quiet --site-dir "$work/src/mkdocs" >"$work/mkdocs.log" 2>&1 \
    || { cat "$work/mkdocs.log" >&2; exit 1; }
)
cp -r sample-bundles/demo/1.1.0 "$work/src/demo"
chmod -R a+rX "$work/src"

# Each site packed twice (plain and --precompress) into one store, one route each.
for site in demo mkdocs; do
  "$pkgctl" pack "$work/src/$site" --name "$site-plain" --version 1 --out "$work/origin" \
    --route "bench.local/$site-plain" >/dev/null
  echo "$site: $("$pkgctl" pack "$work/src/$site" --name "$site-pre" --version 1 --out "$work/origin" \
    --route "bench.local/$site-pre" --precompress | grep '^precompressed')" >> "$work/pack-lines"
done
"$pkgctl" update --quiet --root "$work/store" --manifest "file://$work/origin/manifest.json"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pport=$(free_port); nport=$(free_port)
mkdir -p "$work/nginx"
for site in demo mkdocs; do ln -s "$work/store/packages/$site-plain/1" "$work/nginx/$site"; done
text_types="application/javascript text/css application/json image/svg+xml text/plain text/xml application/wasm"
text_types+=" application/manifest+json text/csv text/markdown"   # text/html is always compressed
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  types { application/json map; application/manifest+json webmanifest; text/csv csv; text/markdown md; }
  access_log off;
  gzip on;
  gzip_types $text_types;
  client_body_temp_path $work/tmp-body; proxy_temp_path $work/tmp-proxy; fastcgi_temp_path $work/tmp-fcgi;
  uwsgi_temp_path $work/tmp-uwsgi; scgi_temp_path $work/tmp-scgi;
  server { listen 127.0.0.1:$nport; root $work/nginx; disable_symlinks off; }
}
CONF
nginx -p "$work" -c "$work/nginx.conf"
"$pkgctl" serve --quiet --offline --root "$work/store" --port "$pport" --default-host bench.local >/dev/null 2>&1 &
serve_pid=$!
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$pport/demo-plain/index.html" && break; sleep 0.1; done
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$nport/demo/index.html" && break; sleep 0.1; done

# Per file: body and header bytes of each way, after checking that every answer decodes to the file.
size() { curl -sf -o /dev/null -w '%{size_download}\t%{size_header}' "${@:2}" "$1"; }
for site in demo mkdocs; do
  : > "$work/$site.tsv"
  while IFS= read -r -d '' file; do
    rel=${file#"$work/src/$site/"}
    for url in "http://127.0.0.1:$pport/$site-pre/$rel" "http://127.0.0.1:$nport/$site/$rel"; do
      for ae in br "gzip, deflate"; do
        curl -sf --compressed -H "Accept-Encoding: $ae" "$url" | cmp -s - "$file" \
          || { echo "$url (Accept-Encoding: $ae) does not decode to $file" >&2; exit 1; }
      done
    done
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$rel" "$(stat -c %s "$file")" \
      "$(size "http://127.0.0.1:$pport/$site-plain/$rel")" \
      "$(size "http://127.0.0.1:$pport/$site-pre/$rel" -H 'Accept-Encoding: br')" \
      "$(size "http://127.0.0.1:$pport/$site-pre/$rel" -H 'Accept-Encoding: gzip, deflate')" \
      "$(size "http://127.0.0.1:$nport/$site/$rel" -H 'Accept-Encoding: gzip, deflate')" >> "$work/$site.tsv"
  done < <(find "$work/src/$site" -type f -print0 | sort -z)
done

# pack time for the MkDocs site, plain vs --precompress, alternating, fresh OUT each run.
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
plain_ms=(); pre_ms=()
for _ in $(seq 1 "$runs"); do
  for kind in plain pre; do
    flags=(); [ "$kind" = pre ] && flags=(--precompress)
    rm -rf "$work/timed"
    start=$(date +%s%N)
    "$pkgctl" pack "$work/src/mkdocs" --name timed --version 1 --out "$work/timed" "${flags[@]}" >/dev/null
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ "$kind" = plain ]; then plain_ms+=("$ms"); else pre_ms+=("$ms"); fi
  done
done
zip_plain=$(stat -c %s "$work"/origin/zips/mkdocs-plain-1.*.zip 2>/dev/null || echo '?')
zip_pre=$(stat -c %s "$work"/origin/zips/mkdocs-pre-1.*.zip 2>/dev/null || echo '?')

python3 - "$work" <<'PY'
import collections, os, sys
work = sys.argv[1]
text = {"html", "js", "css", "json", "map", "svg", "txt", "xml", "webmanifest", "csv", "md", "wasm"}
lines = dict(l.split(": ", 1) for l in open(f"{work}/pack-lines").read().splitlines())
def ext(path):
    base = os.path.basename(path)
    return base.rsplit(".", 1)[1].lower() if "." in base else ""
ways = [("pkgctl serve, plain pack, identity", "pkgctl identity"),
        ("pkgctl serve, --precompress, AE: br", "pkgctl br"),
        ("pkgctl serve, --precompress, AE: gzip, deflate", "pkgctl gz"),
        ("nginx, gzip on the fly, AE: gzip, deflate", "nginx gz")]
for site in ["demo", "mkdocs"]:
    rows = []
    for line in open(f"{work}/{site}.tsv").read().splitlines():
        path, size, *v = line.split("\t")
        v = list(map(int, v))
        rows.append((path, int(size), v[0::2], v[1::2]))   # bodies, headers per way
    total = sum(r[1] for r in rows)
    texts = [r for r in rows if ext(r[0]) in text]
    body = [sum(r[2][i] for r in rows) for i in range(4)]
    head = [sum(r[3][i] for r in rows) for i in range(4)]
    nomap = [sum(r[2][i] for r in rows if ext(r[0]) != "map") for i in range(4)]
    assert body[0] == total, f"{site}: identity {body[0]} != {total} bytes on disk"
    print(f"\n{site}: {len(rows)} files, {total} bytes; text {len(texts)} files, {sum(r[1] for r in texts)} bytes"
          f" ({sum(1 for r in texts if r[1] >= 512)} of them >= 512 bytes)")
    print(f"  pack --precompress: {lines[site]}")
    print(f"  {'whole site, response bodies':47} {'bytes':>8} {'of ident.':>9} {'/ nginx':>8}"
          f" {'headers':>8} {'w/o .map':>9} {'/ nginx':>8}")
    for i, (label, _) in enumerate(ways):
        print(f"  {label:47} {body[i]:8d} {100 * body[i] / total:8.1f}% {body[i] / body[3]:7.2f}x"
              f" {head[i]:8d} {nomap[i]:9d} {nomap[i] / nomap[3]:7.2f}x")
    by = collections.defaultdict(lambda: [0] * 5)
    for r in rows:
        e = by[ext(r[0]) or "(none)"]
        e[0] += 1
        for i in range(4): e[i + 1] += r[2][i]
    print(f"  {'by type':8} {'files':>5} " + " ".join(f"{short:>15}" for _, short in ways))
    for e, v in sorted(by.items(), key=lambda kv: -kv[1][1]):
        print(f"  {e:8} {v[0]:5d} " + " ".join(f"{x:15d}" for x in v[1:]))
    for path, size, (i, b, g, n), _ in rows:
        if b > n or g > n:
            print(f"  more than nginx: {path} ({size} bytes): pkgctl br {b}, gzip {g}; nginx gzip {n}")
        if b > size or g > size:
            print(f"  larger than the file: {path} ({size} bytes): br {b}, gzip {g}")
PY
printf '\nmkdocs pack time, median of %s: plain %s ms, --precompress %s ms (x%s); zip %s -> %s bytes\n' "$runs" \
  "$(median "${plain_ms[@]}")" "$(median "${pre_ms[@]}")" \
  "$(awk -v a="$(median "${pre_ms[@]}")" -v b="$(median "${plain_ms[@]}")" 'BEGIN { printf "%.1f", a / b }')" \
  "$zip_plain" "$zip_pre"
