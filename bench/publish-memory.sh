#!/usr/bin/env bash
# `pkgctl publish` of a publishing folder holding one 1 GiB zip (a release of one incompressible
# 1 GiB file: its zip and its object, 2 GiB to copy), side by side with `rsync -a` and `cp -a`
# of the same folder in one run: peak RSS and seconds (/usr/bin/time -v), then the run that finds
# everything already there, trusting names and sizes (the default) and re-hashing (--verify).
# Issue 44's bound: publish within 64 MiB of RSS, whatever the file's size.
# Usage: bench/publish-memory.sh [MiB]   (default 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v rsync >/dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq rsync >/dev/null; }
[ -x /usr/bin/time ] || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq time >/dev/null; }
mib=${1:-1024}
pkgctl=$(bench/lib/shipped-pkgctl)   # the build the packages ship
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-bench-publish-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
head -c "$((mib << 20))" /dev/urandom > "$work/src/large.bin"
"$pkgctl" pack "$work/src" --name large --version 1.0.0 --out "$work/out" --delta-from 0 > /dev/null
echo "publishing folder: $(du -sb "$work/out" | cut -f1) bytes in $(find "$work/out" -type f | wc -l) files"
sync
declare -A seconds_of rss_of
measure() {  # measure LABEL COMMAND...: prints LABEL, seconds and peak RSS, and keeps both
  local label=$1; shift
  sync; echo 3 > /proc/sys/vm/drop_caches 2> /dev/null || true
  /usr/bin/time -v "$@" > /dev/null 2> "$work/time.txt"
  local seconds rss
  seconds=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" | awk -F: '{print ($1 * 60) + $2}')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  printf '%-34s %8.2f s %8.1f MiB\n' "$label" "$seconds" "$(echo "$rss / 1024" | bc -l)"
  seconds_of[$label]=$seconds
  rss_of[$label]=$rss
}
printf '%-34s %10s %12s\n' command time "peak RSS"
measure "pkgctl publish" "$pkgctl" publish "$work/out" "$work/dest-pkgctl"
measure "rsync -a" rsync -a "$work/out/" "$work/dest-rsync/"
measure "rsync -a --fsync" rsync -a --fsync "$work/out/" "$work/dest-rsync-fsync/"
measure "cp -a" cp -a "$work/out" "$work/dest-cp"
measure "pkgctl publish, all there" "$pkgctl" publish "$work/out" "$work/dest-pkgctl"
measure "pkgctl publish --verify, all there" "$pkgctl" publish --verify "$work/out" "$work/dest-pkgctl"
measure "rsync -a, all there" rsync -a "$work/out/" "$work/dest-rsync/"
echo "pkgctl publish / rsync -a --fsync: time $(echo "scale=2; ${seconds_of[pkgctl publish]} / ${seconds_of[rsync -a --fsync]}" | bc)x," \
  "peak RSS $(echo "scale=2; ${rss_of[pkgctl publish]} / ${rss_of[rsync -a --fsync]}" | bc)x"
