#!/usr/bin/env bash
# The cost of the C ABI's boundary (issue 26): a local hit (20 KB js/app.js, one package)
# as a task through pkgctl/resolver.h (bench/abi/resolver_bench.c: start, poll the
# descriptor, dispatch head, body and end on the calling thread, stop) vs the same task
# through PkgCore's Swift API (ResolveBench: start, callbacks on the resolver's threads,
# wait for finish). Both release builds, one task at a time, in one run; prints the
# medians, their ratio, and heap allocations and instructions per hit (valgrind DHAT and
# callgrind: 2,000 hits minus 1,000).
# Usage: bench/abi.sh [RUNS]   (default 100000 timed hits each)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100000}
# Both built as scripts/package builds the library (the Swift runtime linked in), in its folder.
build=(scripts/lib/release-build)
"${build[@]}" --product ResolveBench >/dev/null
"${build[@]}" --product pkgctl-resolver >/dev/null
release=$("${build[@]}" --show-bin-path)
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-abi-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
. bench/lib/one-package-store.sh
one_package_store "$work/store"
url=app://www.example.com/app/js/app.js
# The host finds the library by its SONAME, as installed.
mkdir -p "$work/lib"
ln -s "$release/libpkgctl-resolver.so" "$work/lib/libpkgctl-resolver.so.0"
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/resolver_bench" bench/abi/resolver_bench.c \
  -ISources/CPkgResolver/include -L"$release" -lpkgctl-resolver -Wl,-rpath,"$work/lib"

swift_line=$("$release/ResolveBench" "$work/store" "$url" | grep '^swift local hit')
abi_line=$("$work/resolver_bench" "$work/store" "$url" "$runs")
echo "$swift_line"
echo "$abi_line"
median() { sed -n 's/.*median \([0-9]*\) ns.*/\1/p' <<<"$1"; }
awk -v a="$(median "$abi_line")" -v s="$(median "$swift_line")" \
  'BEGIN { printf "abi / swift (median): %.2fx, %+d ns per hit\n", a / s, a - s }'

if command -v valgrind >/dev/null; then
  # Debian 12's valgrind cannot read Swift 6's DWARF 5: stripped copies.
  strip --strip-debug -o "$work/ResolveBench" "$release/ResolveBench"
  mkdir -p "$work/stripped"
  strip --strip-debug -o "$work/stripped/libpkgctl-resolver.so.0" "$release/libpkgctl-resolver.so"
  blocks() {  # blocks allocated by COMMAND... (DHAT's total)
    valgrind --tool=dhat --dhat-out-file=/dev/null "$@" 2>&1 |
      sed -n 's/.*Total: *[0-9,]* bytes in \([0-9,]*\) blocks.*/\1/p' | tr -d ,
  }
  per_hit() { echo "scale=1; ($2 - $1) / 1000" | bc; }
  s1=$(RESOLVE_BENCH_TASK_ONLY=1000 blocks "$work/ResolveBench" "$work/store" "$url")
  s2=$(RESOLVE_BENCH_TASK_ONLY=2000 blocks "$work/ResolveBench" "$work/store" "$url")
  a1=$(RESOLVER_BENCH_COUNT_ONLY=1 LD_LIBRARY_PATH="$work/stripped" blocks "$work/resolver_bench" "$work/store" "$url" 1000)
  a2=$(RESOLVER_BENCH_COUNT_ONLY=1 LD_LIBRARY_PATH="$work/stripped" blocks "$work/resolver_bench" "$work/store" "$url" 2000)
  echo "allocations per hit (valgrind dhat): swift $(per_hit "$s1" "$s2"), abi $(per_hit "$a1" "$a2")"
  # Instructions, all threads together (callgrind's total), which the machine's load does not change.
  instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
      sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
  }
  s1=$(RESOLVE_BENCH_TASK_ONLY=1000 instructions "$work/ResolveBench" "$work/store" "$url")
  s2=$(RESOLVE_BENCH_TASK_ONLY=2000 instructions "$work/ResolveBench" "$work/store" "$url")
  a1=$(RESOLVER_BENCH_COUNT_ONLY=1 LD_LIBRARY_PATH="$work/stripped" instructions "$work/resolver_bench" "$work/store" "$url" 1000)
  a2=$(RESOLVER_BENCH_COUNT_ONLY=1 LD_LIBRARY_PATH="$work/stripped" instructions "$work/resolver_bench" "$work/store" "$url" 2000)
  echo "instructions per hit (valgrind callgrind): swift $(( (s2 - s1) / 1000 )), abi $(( (a2 - a1) / 1000 ))"
fi
