#!/usr/bin/env bash
# Work per request, `pkgctl serve` vs nginx, counted rather than timed, so the numbers hold on
# a busy machine: user-space instructions (valgrind's callgrind) and system calls (strace -c)
# per request, over REQUESTS keep-alive requests on one connection (curl -K), after as many
# to warm up, for a 4 KB html file, a 100 KB script, a large chunk's 1.9 MB brotli sibling
# (`Accept-Encoding: br, gzip`; nginx with brotli_static) and a 404. Both servers single-process
# (nginx: master_process off). For pkgctl it also splits the instructions into pkgctl's own
# handler (`PreviewHandler.respond` and what it calls) and the rest (SwiftNIO: event loop,
# HTTP decoder, pipeline, writes).
# Measures the static release build (the .deb's); valgrind 3.19 crashes in libdispatch with
# the dynamic one, and cannot read Swift 6.3's DWARF, so debug info is stripped first.
# Usage: bench/serve-instructions.sh [REQUESTS]   (default 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-2000}
command -v nginx >/dev/null || scripts/setup --test
if ! command -v strace >/dev/null || ! command -v callgrind_annotate >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq && $sudo apt-get install -y -qq strace valgrind >/dev/null
fi
shipped=$(bench/lib/shipped-pkgctl)   # the same build as scripts/package, pkgctl-publisher (pack, which the site needs) beside it
source bench/lib/serve-site.sh
work=$(bench_workdir serve-instructions)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null || true; sleep 0.2; rm -rf "$work"; }
trap cleanup EXIT
pkgctl=$work/pkgctl
objcopy --strip-debug "$shipped" "$pkgctl"
cp "$(dirname "$shipped")/pkgctl-publisher" "$work/pkgctl-publisher"
serve_site "$work"
pport=$(free_port); nport=$(free_port)
nginx_conf "$work" "$nport" "daemon off; master_process off; worker_processes 1;"
pkgctl_serve=("$pkgctl" serve --quiet --offline --root "$work/store" --port "$pport")
nginx_serve=(nginx -p "$work" -c "$work/nginx.conf")

# curl_config URL [HEADER]: a curl config asking for URL $requests times, all on one connection,
# each request with HEADER. (A header is given once: in a config without --next, every
# `header` line is added to every request.)
curl_config() {
  { [ -z "${2:-}" ] || printf 'header = "%s"\n' "$2"
    for _ in $(seq 1 "$requests"); do printf 'url = "%s"\noutput = /dev/null\n' "$1"; done
  } > "$work/curl.cfg"
}
wait_for() { for _ in $(seq 1 300); do curl -s -o /dev/null "$1" && return; sleep 0.2; done; echo "no answer from $1" >&2; exit 1; }

# instructions URL HEADER COMMAND... -> "total respond" instructions per request
instructions() {
  local url=$1 header=$2; shift 2
  rm -f "$work"/cg.*
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" "$@" >/dev/null 2>"$work/valgrind.log" &
  server_pid=$!
  wait_for "$url"; curl_config "$url" "$header"
  curl -s -K "$work/curl.cfg" >/dev/null
  callgrind_control -z "$server_pid" >/dev/null 2>&1
  curl -s -K "$work/curl.cfg" >/dev/null
  callgrind_control -d "$server_pid" >/dev/null 2>&1
  kill -9 "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  local dump; dump=$(ls "$work"/cg.*.1)
  local total respond
  total=$(awk '/^(summary|totals):/ { print $2; exit }' "$dump")
  respond=$(callgrind_annotate --inclusive=yes "$dump" 2>/dev/null \
    | awk '/PreviewHandlerC7respond/ && !found { gsub(",", "", $1); print $1; found = 1 }')
  echo "$((total / requests)) $(( ${respond:-0} / requests ))"
}

# syscalls URL HEADER COMMAND... -> system calls per request
syscalls() {
  local url=$1 header=$2; shift 2
  "$@" >/dev/null 2>&1 &
  server_pid=$!
  wait_for "$url"; curl_config "$url" "$header"
  curl -s -K "$work/curl.cfg" >/dev/null
  strace -f -c -o "$work/strace.out" -p "$server_pid" 2>/dev/null &
  local tracer=$!; sleep 1
  curl -s -K "$work/curl.cfg" >/dev/null
  sleep 0.5; kill -INT "$tracer"; wait "$tracer" 2>/dev/null || true
  kill -9 "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  awk -v n="$requests" '$NF == "total" { printf "%.1f\n", $4 / n }' "$work/strace.out"
}

printf '%-10s %14s %12s %10s %14s %10s %10s\n' case "pkgctl instr" "(handler)" syscalls "nginx instr" syscalls "ratio"
# Each measurement runs in this shell (its output to a file, not through a subshell), so
# a failure stops the run with the server it started known to the cleanup trap.
for case in page.html app.js chunk.js.br missing; do
  path=${case%.br}; header=""; [ "$case" = "$path" ] || header=$ENCODED
  instructions "http://127.0.0.1:$pport/app/$path" "$header" "${pkgctl_serve[@]}" > "$work/result"
  read -r ptotal prespond < "$work/result"
  instructions "http://127.0.0.1:$nport/app/$path" "$header" "${nginx_serve[@]}" > "$work/result"
  read -r ntotal _ < "$work/result"
  syscalls "http://127.0.0.1:$pport/app/$path" "$header" "${pkgctl_serve[@]}" > "$work/result"
  read -r psys < "$work/result"
  syscalls "http://127.0.0.1:$nport/app/$path" "$header" "${nginx_serve[@]}" > "$work/result"
  read -r nsys < "$work/result"
  printf '%-10s %14s %12s %10s %14s %10s %9.2fx\n' "$case" "$ptotal" "$prespond" "$psys" "$ntotal" "$nsys" \
    "$(awk -v a="$ptotal" -v b="$ntotal" 'BEGIN { print a / b }')"
done
echo "per request, over $requests keep-alive requests; ratio = pkgctl's user-space instructions / nginx's;"
echo "(handler) = pkgctl's own PreviewHandler.respond and what it calls, the rest is SwiftNIO and the event loop"
