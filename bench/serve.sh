#!/usr/bin/env bash
# `pkgctl serve` vs nginx (sendfile on, access log off, 2 workers) on the same
# files, with wrk, alternating rounds: a 4 KB html file, a 100 KB script, a large
# chunk asked for with `Accept-Encoding: br, gzip` (its 1.9 MB brotli sibling;
# nginx with brotli_static), and a 404. pkgctl runs with --offline (a miss is a local 404, as nginx's is) and
# --quiet (no access log). Prints requests/s, p99 and the server's CPU time per
# request (utime+stime from /proc, all nginx workers summed) per server, and the
# ratios. CPU per request is the steadier number on a shared, noisy machine.
# Usage: bench/serve.sh [ROUNDS] [SECONDS]   (default 3 rounds of 5 s; PKGCTL=path/to/pkgctl)
set -euo pipefail
[ -n "${PKGCTL:-}" ] && PKGCTL=$(realpath "$PKGCTL")
cd "$(dirname "$0")/.."
rounds=${1:-3}
seconds=${2:-5}
command -v wrk >/dev/null && command -v nginx >/dev/null || scripts/setup --test
command -v wrk >/dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq wrk >/dev/null; }
pkgctl=$(bench/lib/shipped-pkgctl)   # the build the packages ship, or PKGCTL
source bench/lib/serve-site.sh
work=$(bench_workdir serve-bench)
cleanup() {
  [ -n "${serve_pid:-}" ] && kill "$serve_pid" 2>/dev/null || true
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  sleep 0.2; rm -rf "$work"
}
trap cleanup EXIT

serve_site "$work"
pport=$(free_port); nport=$(free_port)
nginx_conf "$work" "$nport" "worker_processes 2;"
nginx -p "$work" -c "$work/nginx.conf"
"$pkgctl" serve --quiet --offline --root "$work/store" --port "$pport" >/dev/null &
serve_pid=$!
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$pport/app/page.html" && break; sleep 0.1; done
cmp <(curl -s "http://127.0.0.1:$pport/app/app.js") <(curl -s "http://127.0.0.1:$nport/app/app.js")
# Both send the same brotli bytes for the chunk.
cmp <(curl -s -H "$ENCODED" "http://127.0.0.1:$pport/app/chunk.js") <(curl -s -H "$ENCODED" "http://127.0.0.1:$nport/app/chunk.js")
curl -s -D - -o /dev/null -H "$ENCODED" "http://127.0.0.1:$nport/app/chunk.js" | grep -qi '^content-encoding: br' \
  || { echo "nginx did not send the brotli sibling" >&2; exit 1; }

# CPU ticks (utime+stime) of the given processes.
ticks() { for pid in "$@"; do awk '{ print $14 + $15 }' "/proc/$pid/stat"; done | awk '{ t += $1 } END { print t }'; }
hz=$(getconf CLK_TCK)
nginx_workers() { pgrep -P "$(cat "$work/nginx.pid")" | tr '\n' ' '; }

# wrk prints "Requests/sec: N", "N requests in" and, with --latency, "99%  X.XXms".
# measure URL HEADER PID... -> "req/s p99-ms cpu-us-per-request" (HEADER may be empty)
measure() {
  local url=$1 header=$2; shift 2
  local before after
  before=$(ticks "$@")
  wrk -t2 -c32 -d"${seconds}s" --latency ${header:+-H "$header"} "$url" > "$work/wrk.out"
  after=$(ticks "$@")
  awk -v cpu=$((after - before)) -v hz="$hz" '
    /Requests\/sec/ { rps = $2 }
    / requests in / { n = $1 }
    $1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }; p99 = v }
    END { printf "%d %.2f %.1f\n", rps, p99, n ? cpu * 1000000 / hz / n : 0 }' "$work/wrk.out"
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

printf '%-10s %12s %8s %9s %12s %8s %9s %8s %8s\n' case "pkgctl req/s" "p99 ms" "CPU us" "nginx req/s" "p99 ms" "CPU us" ratio "CPU ratio"
for case in page.html app.js chunk.js.br missing; do
  path=${case%.br}; header=""; [ "$case" = "$path" ] || header=$ENCODED
  prps=(); pp99=(); pcpu=(); nrps=(); np99=(); ncpu=()
  for _ in $(seq 1 "$rounds"); do
    read -r r p c < <(measure "http://127.0.0.1:$pport/app/$path" "$header" "$serve_pid"); prps+=("$r"); pp99+=("$p"); pcpu+=("$c")
    # shellcheck disable=SC2046
    read -r r p c < <(measure "http://127.0.0.1:$nport/app/$path" "$header" $(nginx_workers)); nrps+=("$r"); np99+=("$p"); ncpu+=("$c")
  done
  pr=$(median "${prps[@]}"); nr=$(median "${nrps[@]}"); pc=$(median "${pcpu[@]}"); nc=$(median "${ncpu[@]}")
  printf '%-10s %12s %8s %9s %12s %8s %9s %7.2fx %7.2fx\n' "$case" "$pr" "$(median "${pp99[@]}")" "$pc" "$nr" \
    "$(median "${np99[@]}")" "$nc" "$(awk -v a="$pr" -v b="$nr" 'BEGIN { print a / b }')" \
    "$(awk -v a="$nc" -v b="$pc" 'BEGIN { print a / b }')"
done
echo "ratio = pkgctl req/s / nginx req/s; CPU ratio = nginx CPU per request / pkgctl's (1.0 or more: pkgctl as fast"
echo "or faster); medians of $rounds rounds of ${seconds}s, wrk -t2 -c32"
