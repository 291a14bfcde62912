#!/usr/bin/env bash
# Image variants (issue 27) on a real app's images: Apache Superset's built front-end as
# PyPI ships it in its wheel (superset/static: webpack chunks, fonts, geojson and 455
# PNG/JPEG files, chart thumbnails and screenshots among them), packed with and without
# `pack --image-variants avif,webp`, then installed over a loopback nginx by four kinds of device.
#   pack     the folder packed plain and with --image-variants avif,webp, RUNS times each,
#            alternating, a fresh OUT each run; prints the zip bytes, the median wall time
#            and the variants' summary line.
#   update   nginx on 127.0.0.1 (bench/lib/static-origin.sh: gzip on, gzip_types *, an
#            access log of $request_uri $status $bytes_sent $body_bytes_sent) serves both
#            OUT dirs; `pkgctl update` into fresh stores: the plain release with no flag
#            (today's device), and the variants release with no flag, --accept-images webp
#            and --accept-images avif,webp. Per device: requests and bytes on the wire
#            (bodies, and bodies + headers) from the access log, the installed version's
#            image bytes (png/jpg/jpeg/webp/avif files) and all its bytes, and the ratios to
#            today's device; the update's wall time is the median of RUNS fresh stores (bytes
#            are the same each run). `pkgctl verify` checks every store.
# Superset ships 8 images whose contents are not what their names say (PNGs named .jpg, a
# JPEG named .png); pack reads them as what their bytes say.
# Last, the decode cost of each device's images (Pillow, one thread), when Pillow reads AVIF.
# The wheel (pinned version and SHA-256) is cached in ${XDG_CACHE_HOME:-~/.cache}/pkgctl-bench.
# Usage: bench/image-variants.sh [RUNS]   (default 3; PKGCTL=path/to/pkgctl skips the build)
set -euo pipefail
[ -n "${PKGCTL:-}" ] && PKGCTL=$(realpath "$PKGCTL")
cd "$(dirname "$0")/.."
runs=${1:-3}
command -v nginx >/dev/null && command -v curl >/dev/null || scripts/setup --test

source bench/lib/superset-wheel.sh
package=apache-superset version=$superset_version
wheel=$(superset_wheel "image-variants bench")

pkgctl=$(bench/lib/shipped-pkgctl)   # the build the packages ship, or PKGCTL
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-image-variants-bench.XXXXXX")
. bench/lib/static-origin.sh

mkdir -p "$work/wheel"
unzip -q "$wheel" 'superset/static/*' -d "$work/wheel"
src=$work/wheel/superset/static
images() { find "$1" -type f \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.webp' -o -iname '*.avif' \) "${@:2}"; }
bytes() { awk '{ s += $1 } END { print s + 0 }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo "app: $package $version, superset/static: $(find "$src" -type f | wc -l) files, $(find "$src" -type f -printf '%s\n' | bytes) bytes;" \
  "$(images "$src" -iname '*.png' | wc -l) png ($(images "$src" -iname '*.png' -printf '%s\n' | bytes) bytes)," \
  "$(images "$src" \( -iname '*.jpg' -o -iname '*.jpeg' \) | wc -l) jpeg ($(images "$src" \( -iname '*.jpg' -o -iname '*.jpeg' \) -printf '%s\n' | bytes) bytes)"

# pack, plain and with variants, alternating; the first run of each is the release nginx serves.
plain_ms=(); variants_ms=()
for i in $(seq 1 "$runs"); do
  for kind in plain variants; do
    flags=(); [ "$kind" = variants ] && flags=(--image-variants avif,webp)
    out=$work/www/$kind; [ "$i" -gt 1 ] && { rm -rf "$work/timed"; out=$work/timed; }
    start=$(date +%s%N)
    "$pkgctl" pack "$src" --name superset --version "$version" --out "$out" --route superset.local/static \
      "${flags[@]}" > "$work/pack-$kind.out"
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ "$kind" = plain ]; then plain_ms+=("$ms"); else variants_ms+=("$ms"); fi
    [ "$i" -eq 1 ] && cp "$work/pack-$kind.out" "$work/pack-$kind.first"
  done
done
rm -rf "$work/timed"
zip_plain=$(stat -c %s "$work/www/plain/zips/superset-$version".*.zip)
zip_variants=$(stat -c %s "$work/www/variants/zips/superset-$version".*.zip)
echo
echo "pack (median of $runs): plain $(median "${plain_ms[@]}") ms, --image-variants avif,webp $(median "${variants_ms[@]}") ms" \
  "(x$(awk -v a="$(median "${variants_ms[@]}")" -v b="$(median "${plain_ms[@]}")" 'BEGIN { printf "%.1f", a / b }'));" \
  "runs: plain ${plain_ms[*]} ms, variants ${variants_ms[*]} ms"
echo "zip: plain $zip_plain bytes, with variants $zip_variants bytes" \
  "(x$(awk -v a="$zip_variants" -v b="$zip_plain" 'BEGIN { printf "%.3f", a / b }'))"
echo "$(grep '^image variants' "$work/pack-variants.first")"

# update: four kinds of device, RUNS fresh stores each; bytes from the first store of each kind.
kinds=("plain release, no flag|plain|" "variants release, no flag|variants|"
       "variants release, --accept-images webp|variants|webp" "variants release, --accept-images avif,webp|variants|avif,webp")
printf '%s\n' "${kinds[@]}" > "$work/kinds"
for k in "${!kinds[@]}"; do
  IFS='|' read -r label release accept <<< "${kinds[$k]}"
  flags=(); [ -n "$accept" ] && flags=(--accept-images "$accept")
  times=()
  for i in $(seq 1 "$runs"); do
    store=$work/store-$k-$i
    : > "$work/access.log"
    start=$(date +%s%N)
    "$pkgctl" update --quiet --root "$store" --manifest "http://127.0.0.1:$port/$release/manifest.json" "${flags[@]}"
    times+=($(( ($(date +%s%N) - start) / 1000000 )))
    "$pkgctl" verify --root "$store" > "$work/verify-$k.out" 2>&1 \
      || { cat "$work/verify-$k.out" >&2; echo "verify failed: $label" >&2; exit 1; }
    if [ "$i" -eq 1 ]; then
      sleep 0.3   # nginx writes its log line after the answer
      cp "$work/access.log" "$work/access-$k.log"
      installed=$store/packages/superset/$version
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" \
        "$(wc -l < "$work/access-$k.log")" \
        "$(awk '{ s += $4 } END { print s + 0 }' "$work/access-$k.log")" \
        "$(awk '{ s += $3 } END { print s + 0 }' "$work/access-$k.log")" \
        "$(images "$installed" -printf '%s\n' | bytes)" \
        "$(find -L "$installed" -type f -printf '%s\n' | bytes)" \
        "$(images "$installed" \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' \) | wc -l)" \
        "$(images "$installed" -iname '*.webp' | wc -l)" \
        "$(images "$installed" -iname '*.avif' | wc -l)" >> "$work/devices.tsv"
    else
      rm -rf "$store"
    fi
  done
  echo "$k $(median "${times[@]}") ${times[*]}" >> "$work/update-times"
done

python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
labels = [l.split("|")[0] for l in open(f"{work}/kinds").read().splitlines()]
times = {int(l.split()[0]): (float(l.split()[1]), l.split()[2:]) for l in open(f"{work}/update-times")}
rows = [list(map(int, l.split("\t"))) for l in open(f"{work}/devices.tsv").read().splitlines()]
base = rows[0]
print(f"\n{'device':44} {'requests':>8} {'wire bodies':>12} {'(x)':>6} {'wire total':>11} {'image bytes':>12} {'(x)':>6}"
      f" {'installed':>11} {'(x)':>6} {'png/jpg':>7} {'webp':>5} {'avif':>5} {'update ms':>9}")
for k, req, body, total, img, inst, orig, webp, avif in rows:
    print(f"{labels[k]:44} {req:8d} {body:12d} {body / base[2]:6.3f} {total:11d} {img:12d} {img / base[4]:6.3f}"
          f" {inst:11d} {inst / base[5]:6.3f} {orig:7d} {webp:5d} {avif:5d} {times[k][0]:9.0f}")
print("update wall times (ms) per device kind: " + "; ".join(f"{labels[k]}: {' '.join(t[1])}" for k, t in sorted(times.items())))
for k, *_ in rows:
    kinds = {}
    for line in open(f"{work}/access-{k}.log"):
        uri, status, sent, body = line.split()
        kind = next((p for p in ("manifest", "/objects/", "/index", ".zip") if p in uri), "other")
        n, b = kinds.get((kind, status), (0, 0))
        kinds[(kind, status)] = (n + 1, b + int(body))
    print(f"  {labels[k]}: " + ", ".join(f"{kind} {status}: {n} requests, {b} bytes" for (kind, status), (n, b) in sorted(kinds.items())))
PY

# Decode cost, a proxy for what a web engine pays to draw the images: every image file of the
# installed version decoded from memory in one thread with Pillow (libpng, libjpeg-turbo,
# libwebp, libavif with dav1d, the decoders WebKitGTK uses too), RUNS passes alternating
# between the devices; skipped without a Pillow that reads AVIF.
if python3 -c 'from PIL import features; import sys; sys.exit(not (features.check("webp") and features.check("avif")))' 2>/dev/null; then
python3 - "$work" "$runs" "$version" <<'PY'
import io, os, statistics, sys, time
from PIL import AvifImagePlugin, Image, features
Image.MAX_IMAGE_PIXELS = None
AvifImagePlugin.DEFAULT_MAX_THREADS = 1
work, runs, version = sys.argv[1], int(sys.argv[2]), sys.argv[3]
labels = [l.split("|")[0] for l in open(f"{work}/kinds").read().splitlines()]
kinds = [0, 2, 3]   # the plain release, and the variants release with webp, with avif,webp
def files(k):
    root = f"{work}/store-{k}-1/packages/superset/{version}"
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
                  if f.lower().rsplit(".", 1)[-1] in ("png", "jpg", "jpeg", "webp", "avif"))
sets = {k: [(p, open(p, "rb").read()) for p in files(k)] for k in kinds}
times = {k: [] for k in kinds}
for _ in range(runs):
    for k in kinds:
        start = time.perf_counter()
        for _, data in sets[k]:
            with Image.open(io.BytesIO(data)) as im:
                im.load()
        times[k].append((time.perf_counter() - start) * 1000)
base = statistics.median(times[0])
print(f"\ndecode, one thread, Pillow {Image.__version__} (libwebp {features.version('webp')},"
      f" libavif {features.version('avif')} with dav1d), every image of the installed version from memory,"
      f" median of {runs} passes:")
for k in kinds:
    by = {}
    for p, _ in sets[k]:
        e = p.rsplit(".", 1)[-1].lower(); by[e] = by.get(e, 0) + 1
    m = statistics.median(times[k])
    print(f"  {labels[k]:44} {len(sets[k]):4d} files ({', '.join(f'{n} {e}' for e, n in sorted(by.items()))}):"
          f" {m:7.0f} ms (x{m / base:.2f}); passes {' '.join(f'{t:.0f}' for t in times[k])}")
PY
else
  echo "decode cost skipped: no Pillow with WebP and AVIF support (pip install pillow)"
fi
