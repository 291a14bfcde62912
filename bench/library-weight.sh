#!/usr/bin/env bash
# What libpkgctl-resolver.so carries, by module: the shipped release build
# (scripts/lib/release-build) linked once more with a link map, the map's kept input
# sections summed by archive or SwiftPM module (bench/lib/link-map-by-module.py), beside the
# stripped file's size and its largest sections (what the linker itself adds: relocations,
# the unwind index). Needs only the build.
# Usage: bench/library-weight.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-library-weight.XXXXXX")
trap 'rm -rf "$work"' EXIT
scripts/lib/release-build --product pkgctl-resolver -Xlinker "-Map=$work/link.map" >/dev/null
library=$(scripts/lib/release-build --show-bin-path)/libpkgctl-resolver.so
strip -o "$work/stripped.so" "$library"
echo "libpkgctl-resolver.so stripped: $(stat -c %s "$work/stripped.so") bytes"
python3 bench/lib/link-map-by-module.py "$work/link.map"
echo "largest sections of the stripped file:"
size -A "$work/stripped.so" | awk '$2 ~ /^[0-9]+$/ && $2 > 0 && $1 != "Total" && $1 != ".bss" { printf "%12d  %s\n", $2, $1 }' | sort -rn | head -8
# The next ordinary build links the library again without the map.
