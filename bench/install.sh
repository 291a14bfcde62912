#!/usr/bin/env bash
# Installs one realistic bundle (about 1,500 files, 25 MB) with
#   pkgctl update --manifest file://…   (download, SHA-256, checks, 2-thread extraction, syncfs, atomic switch)
# and extracts the same zip with
#   unzip -q ZIP -d EMPTY_DIR            (Info-ZIP: no verification, no fsync)
#   bsdtar -xf ZIP -C EMPTY_DIR && sync -f EMPTY_DIR   (libarchive, then the filesystem flushed:
#                                         the durability pkgctl's one syncfs gives)
# in turn, RUNS times each, and prints the medians and pkgctl's ratio to each. SCALE (default 1)
# multiplies the bundle's files: 1 is the medium bundle (1,501 files), 6.666 the large (10,001).
# Outputs of earlier runs are moved aside, not deleted, between runs: deleting a
# large tree right before creating one slows file creation on this filesystem
# (see ARCHITECTURE.md), which would measure the deletion.
# Usage: bench/install.sh [RUNS] [SCALE]   (defaults 9, 1; PKGCTL=path/to/pkgctl measures another build)
set -euo pipefail
[ -n "${PKGCTL:-}" ] && PKGCTL=$(realpath "$PKGCTL")
cd "$(dirname "$0")/.."
runs=${1:-9}
scale=${2:-1}
command -v bsdtar >/dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq libarchive-tools >/dev/null; }
pkgctl=$(bench/lib/shipped-pkgctl)   # the build the packages ship, or PKGCTL
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 bench/make-bundle.py "$work/src" 1 "$scale" 2>&1
"$pkgctl" pack "$work/src" --name bench --version 1.0.0 --out "$work/origin" >/dev/null
zip=$(echo "$work"/origin/zips/bench-1.0.0.*.zip)
echo "zip: $(stat -c %s "$zip") bytes"
cat "$zip" >/dev/null   # both read it from the page cache

now() { date +%s%N; }
pk=(); uz=(); bt=()
for i in $(seq 1 "$runs"); do
  sync
  start=$(now); unzip -q "$zip" -d "$work/unzip-$i"; end=$(now)
  uz+=($(( (end - start) / 1000 )))
  sync
  mkdir "$work/bsdtar-$i"
  start=$(now); bsdtar -xf "$zip" -C "$work/bsdtar-$i" && sync -f "$work/bsdtar-$i"; end=$(now)
  bt+=($(( (end - start) / 1000 )))
  sync
  start=$(now); "$pkgctl" update --quiet --root "$work/store-$i" --manifest "file://$work/origin/manifest.json"; end=$(now)
  pk+=($(( (end - start) / 1000 )))
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
mp=$(median "${pk[@]}"); mu=$(median "${uz[@]}"); mb=$(median "${bt[@]}")
echo "runs: $runs"
echo "pkgctl update  median $(( mp / 1000 )) ms   (all µs: ${pk[*]})"
echo "unzip -q       median $(( mu / 1000 )) ms   (all µs: ${uz[*]})"
echo "bsdtar + sync  median $(( mb / 1000 )) ms   (all µs: ${bt[*]})"
awk -v p="$mp" -v u="$mu" -v b="$mb" 'BEGIN { printf "ratio pkgctl/unzip: %.2fx, pkgctl/bsdtar+sync: %.2fx (below 1.0 = pkgctl faster)\n", p / u, p / b }'
