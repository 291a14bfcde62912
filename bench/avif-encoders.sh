#!/usr/bin/env bash
# AVIF encoders for `pack --image-variants avif`: libavif 0.11.1 (Debian 12) drives libaom, SVT-AV1
# and rav1e; pack uses aom speed 6, one thread, 4:2:0 8-bit full range, CICP 1/13/6, min = max
# quantizer Q from the ladder [24, 16, 8] (first with SSIM >= 0.98 kept). This measures each
# candidate encoder+speed with Debian's avifenc/avifdec (the same libavif) on the images pack
# encodes lossy from Apache Superset 6.1.0's wheel (superset/static: JPEGs and opaque PNGs with more
# than 256 colours, >= 1024 bytes; 300 of them: the 40 largest plus every 5th of the rest by path,
# then every STRIDE-th of those by path), converted to 8-bit RGB PNG:
#   cpu s    encode user+sys CPU seconds (/usr/bin/time, avifenc -j 1, under nice -n 5), summed
#   bytes    AVIF bytes, summed
#   SSIM     decoded (avifdec -d 8) vs source, RGB, scikit-image structural_similarity
#            (channel_axis, data_range=255): mean, min, share of images >= 0.98
#   repeat   at the quantizers in DETQ: a second -j 1 encode gives the same bytes for every image
#   j1=j2    at DETQ: an -j 2 encode gives the same bytes as -j 1 for every image
# plus the ladder pack runs (per image the first Q in QUANTIZERS with SSIM >= 0.98, else the last):
# CPU of all encodes tried, bytes kept, share passing.
# libavif 0.11.1 clamps speeds: aom -s 10 = 9 (all-intra cpu-used 9), svt -s >8 = preset 8, rav1e 0-10;
# the script checks svt -s 10 == -s 8 and aom -s 10 == -s 9 byte for byte on one image.
# SVT-AV1 1.4.1 through libavif 0.11.1 refuses 4:2:0 images of odd width or height ("Source Height
# must be even"): such images count as failed, and svt's sums and ratios cover the rest.
# Usage: bench/avif-encoders.sh [STRIDE]   (default 4: 23 images, 19.8 Mpx; 1: all 92)
#   env QUANTIZERS="24 16 8" (pack's ladder), DETQ="24", CANDIDATES="aom:6 aom:7 aom:8 aom:9 svt:8 rav1e:8 rav1e:10",
#   JOBS=2 (encodes run side by side; CPU seconds are per process).
# The wheel (pinned version and SHA-256) is cached in ${XDG_CACHE_HOME:-~/.cache}/pkgctl-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
stride=${1:-4}
quantizers=${QUANTIZERS:-24 16 8}
detq=${DETQ:-24}
candidates=${CANDIDATES:-aom:6 aom:7 aom:8 aom:9 svt:8 rav1e:8 rav1e:10}
jobs=${JOBS:-2}

command -v avifenc >/dev/null && command -v avifdec >/dev/null || { apt-get update && apt-get install -y libavif-bin; } >&2
[ -x /usr/bin/time ] || { apt-get update && apt-get install -y time; } >&2
python3 -c 'import skimage, PIL, numpy' 2>/dev/null || python3 -m pip install --quiet scikit-image pillow >&2

source bench/lib/superset-wheel.sh
wheel=$(superset_wheel "avif-encoders bench")

work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-avif-encoders-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/wheel" "$work/src" "$work/enc" "$work/rows"
unzip -q "$wheel" 'superset/static/*' -d "$work/wheel"
python3 bench/lib/avif-encoders.py select "$work/wheel/superset/static" "$work/src" "$stride" > "$work/images.tsv"
rm -rf "$work/wheel"
echo "avifenc: $(avifenc --version | head -1)"
echo "images: $(wc -l < "$work/images.tsv"), $(awk -F'\t' '{ split($3, a, "x"); p += a[1] * a[2]; b += $2 }
  END { printf "%.1f Mpx, %d source bytes", p / 1e6, b }' "$work/images.tsv"); stride $stride"

# One encode: candidate codec speed q image det -> a row in rows/ (cpu, bytes, decoded PNG, repeat, j1=j2).
encode() {
  local cand=$1 codec=$2 speed=$3 q=$4 img=$5 det=$6
  local base=$work/enc/$cand-q$q-$img src=$work/src/$img.png
  local flags=(-c "$codec" -s "$speed" --min "$q" --max "$q" -y 420 -d 8 -r full --cicp 1/13/6
               --ignore-icc --ignore-exif --ignore-xmp)
  local cpu=nan size=0 rep=- j2=-
  if /usr/bin/time -f '%U %S' -o "$base.time" nice -n 5 avifenc "${flags[@]}" -j 1 "$src" "$base.avif" >/dev/null 2>"$base.err"; then
    cpu=$(awk 'END { printf "%.3f", $1 + $2 }' "$base.time")
    size=$(stat -c %s "$base.avif")
    avifdec -d 8 --png-compress 1 "$base.avif" "$base.png" >/dev/null 2>&1 || rm -f "$base.png"
    if [ "$det" = 1 ]; then
      nice -n 5 avifenc "${flags[@]}" -j 1 "$src" "$base.rep.avif" >/dev/null 2>&1 && cmp -s "$base.avif" "$base.rep.avif" && rep=1 || rep=0
      nice -n 5 avifenc "${flags[@]}" -j 2 "$src" "$base.j2.avif" >/dev/null 2>&1 && cmp -s "$base.avif" "$base.j2.avif" && j2=1 || j2=0
    fi
  else
    echo "encode failed: $cand q$q image $img: $(tail -1 "$base.err")" >&2
  fi
  rm -f "$base.avif" "$base.rep.avif" "$base.j2.avif" "$base.time" "$base.err"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cand" "$q" "$img" "$cpu" "$size" "$base.png" "$rep" "$j2" > "$work/rows/$cand-q$q-$img"
}
export -f encode; export work

# Job list: candidate x quantizer x image, largest images first so the parallel tail is short.
images=$(awk -F'\t' '{ split($3, a, "x"); print a[1] * a[2], $1 }' "$work/images.tsv" | sort -k1,1nr -k2 | cut -d' ' -f2)
for c in $candidates; do
  for q in $quantizers; do
    det=0; for d in $detq; do [ "$d" = "$q" ] && det=1; done
    for img in $images; do echo "${c/:/-} ${c%%:*} ${c#*:} $q $img $det"; done
  done
done > "$work/jobs"
echo "encodes: $(wc -l < "$work/jobs") (+2 each at q $detq for determinism), $jobs at a time" >&2
start=$(date +%s)
xargs -P "$jobs" -L 1 bash -c 'encode "$@"' _ < "$work/jobs"
echo "encoding wall time: $(( $(date +%s) - start )) s" >&2

# Speeds libavif 0.11.1 clamps: the same bytes?
one=$(awk -F'\t' '{ split($3, a, "x") } a[1] % 2 == 0 && a[2] % 2 == 0 { print $1; exit }' "$work/images.tsv")
for pair in "svt 8 10" "aom 9 10"; do
  [ -n "$one" ] || break
  set -- $pair
  avifenc -c "$1" -s "$2" -j 1 --min 24 --max 24 -y 420 -r full --cicp 1/13/6 "$work/src/$one.png" "$work/a.avif" >/dev/null 2>&1 || true
  avifenc -c "$1" -s "$3" -j 1 --min 24 --max 24 -y 420 -r full --cicp 1/13/6 "$work/src/$one.png" "$work/b.avif" >/dev/null 2>&1 || true
  echo "$1 -s $3 vs -s $2 on image $one at q24: $(cmp -s "$work/a.avif" "$work/b.avif" && echo identical bytes || echo different bytes)"
done

cat "$work"/rows/* | sort > "$work/rows.tsv"
split -n l/2 "$work/rows.tsv" "$work/part."
for p in "$work"/part.*; do python3 bench/lib/avif-encoders.py ssim "$work/src" "$p" > "$p.ssim" & done
wait
cat "$work"/part.*.ssim > "$work/results.tsv"

python3 - "$work/results.tsv" "$candidates" "$quantizers" <<'PY'
import math, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
cands = [c.replace(":", "-") for c in sys.argv[2].split()]
qs = sys.argv[3].split()
by = {}
for cand, q, img, cpu, size, ssim, rep, j2 in rows:
    by.setdefault((cand, q), {})[img] = (float(cpu), int(size), float(ssim), rep, j2)
def det(vals):
    vals = [v for v in vals if v != "-"]  # "-": not checked (other q, or the encode failed)
    if not vals: return "-"
    return "yes" if all(v == "1" for v in vals) else f"no ({vals.count('0')}/{len(vals)} differ)"
print(f"\n{'candidate':10} {'q':>6} {'cpu s':>8} {'x aom-6':>7} {'bytes':>10} {'x aom-6':>7} {'mean SSIM':>9} {'min SSIM':>9} {'>=0.98':>7} {'repeat':>8} {'j1=j2':>16}")
for q in qs:
    base = by.get(("aom-6", q), {})
    for c in cands:
        r = by.get((c, q))
        if not r: continue
        good = {i: x for i, x in r.items() if x[1] > 0 and not math.isnan(x[2])}
        failed = len(r) - len(good)
        v = list(good.values())
        if not v:
            print(f"{c:10} {q:>6}  all {len(r)} images failed to encode"); continue
        cpu = sum(x[0] for x in v); size = sum(x[1] for x in v); ss = [x[2] for x in v]
        # ratios to aom speed 6 over the same images (an encoder that failed some is compared on the rest)
        bcpu = sum(base[i][0] for i in good if i in base) or float("nan")
        bsize = sum(base[i][1] for i in good if i in base) or float("nan")
        print(f"{c:10} {q:>6} {cpu:8.1f} {cpu / bcpu:7.3f} {size:10d} {size / bsize:7.3f} {sum(ss) / len(ss):9.4f} {min(ss):9.4f}"
              f" {sum(s >= 0.98 for s in ss) / len(r):7.1%} {det([x[3] for x in r.values()]):>8} {det([x[4] for x in r.values()]):>16}"
              + (f"  ({failed}/{len(r)} images failed to encode; sums and ratios over the rest)" if failed else ""))
# The ladder pack runs: first q with SSIM >= 0.98, else the last tried.
print(f"\nladder {' -> '.join(qs)} (first q with SSIM >= 0.98, else the last; cpu of every encode tried):")
def ladder(c, imgs):
    cpu = size = passed = 0; kept = {}
    for img in imgs:
        for q in qs:
            x = by[(c, q)][img]; cpu += x[0]
            if x[2] >= 0.98 or q == qs[-1]:
                size += x[1]; passed += x[2] >= 0.98; kept[q] = kept.get(q, 0) + 1; break
    return cpu, size, passed, kept
for c in cands:
    if not all((c, q) in by for q in qs): continue
    imgs = sorted(i for i in by[(c, qs[0])] if all(by[(c, q)][i][1] > 0 and not math.isnan(by[(c, q)][i][2]) for q in qs))
    if not imgs: continue
    cpu, size, passed, kept = ladder(c, imgs)
    bcpu, bsize, bpassed, _ = ladder("aom-6", imgs) if all(("aom-6", q) in by for q in qs) else (cpu, size, passed, {})
    print(f"  {c:10} cpu {cpu:8.1f} s (x{cpu / bcpu:.3f})  bytes {size:10d} (x{size / bsize:.3f})  pass {passed}/{len(imgs)}"
          f" (aom-6 {bpassed})  kept at q: {', '.join(f'{q}: {n}' for q, n in kept.items())}"
          + (f"  [on the {len(imgs)} images it encoded]" if len(imgs) < len(by[(c, qs[0])]) else ""))
PY
