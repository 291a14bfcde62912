#!/usr/bin/env bash
# Publishing to an origin folder, side by side in one run:
#  1. `pkgctl publish OUT DEST` against `rsync -a OUT/ DEST/` (and `rsync -a --fsync`, which flushes
#     as publish does) of the same publishing folder, holding one real release: Streamlit 1.66.0's
#     front-end (its PyPI wheel). Three cases, RUNS times each, medians and ratios:
#       cold     DEST empty: everything copied
#       nothing  DEST already up to date: nothing to copy
#       next     1.66.1 packed into OUT on top of 1.66.0: what the next release adds
#     rsync compares size and mtime; publish reads and hashes what is there, and copies only what
#     the manifest names, in the safe order, flushing once before the manifest.
#  2. Origin bytes after 50 releases of MkDocs 1.6.1's theme (its PyPI wheel; each release changes
#     the theme's script and style, every fifth its Bootstrap bundle too, tree deltas from 3), with
#     and without `pkgctl prune --grace 0` (default --keep 3).
# Wheels are cached in ${TMPDIR:-/tmp}/pkgctl-bench-wheels.
# Usage: bench/publish.sh [RUNS]   (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v rsync >/dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq rsync >/dev/null; }
runs=${1:-7}
pkgctl=$(bench/lib/shipped-pkgctl)   # the build the packages ship
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-bench-publish.XXXXXX")
trap 'rm -rf "$work"' EXIT
cache=${TMPDIR:-/tmp}/pkgctl-bench-wheels
mkdir -p "$cache"
wheel() {  # wheel PACKAGE VERSION -> path
  local found
  found=$(ls "$cache/$1-$2-"*.whl 2>/dev/null | head -1 || true)
  if [ -z "$found" ]; then
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: -d "$cache" "$1==$2" >&2
    found=$(ls "$cache/$1-$2-"*.whl | head -1)
  fi
  echo "$found"
}
front_end() {  # front_end WHEEL PREFIX DEST
  mkdir -p "$work/unpack" && rm -rf "$work/unpack"/*
  unzip -q "$1" "$2*" -d "$work/unpack"
  mv "$work/unpack/$2" "$3"
}
now() { date +%s%N; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

# --- 1. publish against rsync --------------------------------------------------------------
front_end "$(wheel streamlit 1.66.0)" streamlit/static/ "$work/st-1.66.0"
front_end "$(wheel streamlit 1.66.1)" streamlit/static/ "$work/st-1.66.1"
pack() { "$pkgctl" pack "$work/st-$1" --name streamlit --version "$1" --out "$work/$2" --route localhost >/dev/null; }
pack 1.66.0 out
cp -a "$work/out" "$work/out-next" && pack 1.66.1 out-next
echo "release: Streamlit 1.66.0's front-end, $(find "$work/st-1.66.0" -type f | wc -l) files;" \
  "publishing folder $(du -sb "$work/out" | cut -f1) bytes, $(find "$work/out" -type f | wc -l) files"

declare -A times
measure() {  # measure LABEL CASE COMMAND...  (the command gets DEST as its last argument)
  local label=$1 case=$2; shift 2
  local dest="$work/dest-$label-$case-$i"
  case $case in
    cold) ;;
    nothing) cp -a "$work/published" "$dest" ;;
    next) cp -a "$work/published" "$dest" ;;
  esac
  sync
  local start end
  start=$(now); "$@" "$dest" >/dev/null; end=$(now)
  times[$label-$case]+="$(( (end - start) / 1000 )) "
}
"$pkgctl" publish "$work/out" "$work/published" >/dev/null
for i in $(seq 1 "$runs"); do
  for case in cold nothing next; do
    source=$work/out; [ "$case" = next ] && source=$work/out-next
    measure publish "$case" "$pkgctl" publish "$source"
    measure rsync "$case" rsync -a "$source/"
    measure rsync-fsync "$case" rsync -a --fsync "$source/"
  done
  rm -rf "$work"/dest-*
done
echo "runs: $runs (µs, medians)"
for case in cold nothing next; do
  # shellcheck disable=SC2086
  p=$(median ${times[publish-$case]}); r=$(median ${times[rsync-$case]}); f=$(median ${times[rsync-fsync-$case]})
  awk -v c="$case" -v p="$p" -v r="$r" -v f="$f" 'BEGIN {
    printf "%-8s publish %8.1f ms   rsync -a %8.1f ms   rsync -a --fsync %8.1f ms   publish/rsync %.2fx   publish/rsync --fsync %.2fx\n",
      c, p / 1000, r / 1000, f / 1000, p / r, p / f }'
done

# --- 2. origin bytes after 50 releases, with and without prune -----------------------------
front_end "$(wheel mkdocs 1.6.1)" mkdocs/themes/mkdocs/ "$work/site"
for n in $(seq 1 50); do
  files="js/base.js css/base.css"
  [ $((n % 5)) -eq 0 ] && files="$files js/bootstrap.bundle.min.js"
  for f in $files; do printf '\n/* release %s */\n' "$n" >> "$work/site/$f"; done
  "$pkgctl" pack "$work/site" --name site --version "1.0.$n" --out "$work/mk" --route docs.example.com >/dev/null
done
before=$(du -sb "$work/mk" | cut -f1); files_before=$(find "$work/mk" -type f | wc -l)
"$pkgctl" prune "$work/mk" --grace 0 | tail -1
after=$(du -sb "$work/mk" | cut -f1); files_after=$(find "$work/mk" -type f | wc -l)
published=$("$pkgctl" publish "$work/mk" "$work/mk-published" | tail -1)
awk -v b="$before" -v a="$after" -v fb="$files_before" -v fa="$files_after" 'BEGIN {
  printf "50 releases of MkDocs 1.6.1 theme: origin %d bytes in %d files without prune, %d bytes in %d files after prune (%.1f %%)\n",
    b, fb, a, fa, 100 * a / b }'
echo "what publish copies of it to a new origin (the current release only): $published"
