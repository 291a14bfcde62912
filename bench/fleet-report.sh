#!/usr/bin/env bash
# `pkgctl fleet report` on a large access log against awk doing the simplest useful count
# on the same log (the report lines per outcome), in one run: lines per second, MB per
# second and peak RSS of each, and the ratio. The log is synthetic, in nginx's combined
# format: 1 line in 20 an outcome report (20,000 devices, 8 releases, a few per cent
# rolled back or failed), the rest a site's own traffic; SIZE_MB of it (default 1024).
# Peak RSS shows the log is streamed: it stays flat whatever SIZE_MB is.
# Usage: bench/fleet-report.sh [SIZE_MB] [RUNS]   (default 1024 MB, 3 runs; medians)
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
runs=${2:-3}
[ -x /usr/bin/time ] || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq time >/dev/null; }
command -v mawk >/dev/null || command -v gawk >/dev/null || command -v awk >/dev/null
swift build -c release --product pkgctl >/dev/null && swift build -c release --product pkgctl-publisher >/dev/null
pkgctl=$PWD/.build/release/pkgctl
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-fleet-report.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/access.log

python3 - "$log" "$size_mb" <<'PY'
import random, sys
path, size = sys.argv[1], int(sys.argv[2]) << 20
rng = random.Random(11)
alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
devices = ["".join(rng.choice(alphabet) for _ in range(16)) for _ in range(20000)]
releases = [("app", f"1.{minor}.0") for minor in range(6)] + [("docs", "2.0.0"), ("docs", "2.1.0")]
agent = '"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15"'
site = ["/app/index.html", "/app/assets/index-BDoW_Vkf.js", "/app/assets/vendor-CN69Lnk7.js", "/app/img/logo.png",
        "/manifest.json", "/app/api/state?x=1"]
lines, written = [], 0
with open(path, "w") as out:
    while written < size:
        ip = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}"
        if rng.random() < 0.05:
            name, release = rng.choice(releases)
            roll = rng.random()
            outcome = "rolledBack&c=exit" if roll < 0.03 else "failed&e=checksumMismatch" if roll < 0.04 else "upgraded"
            target = f"/report/v1?p={name}&r={release}&f=1.0.0&a={outcome}&d={rng.choice(devices)}&v=0.1.0"
            status = 404
        else:
            target, status = rng.choice(site), 200
        line = f'{ip} - - [25/Nov/2026:17:{rng.randrange(60):02d}:{rng.randrange(60):02d} +0000] "GET {target} HTTP/1.1" {status} {rng.randrange(100, 90000)} "-" {agent}\n'
        lines.append(line)
        written += len(line)
        if len(lines) >= 10000:
            out.write("".join(lines)); lines = []
    out.write("".join(lines))
PY
bytes=$(stat -c %s "$log")
count=$(wc -l < "$log")
awk_bin=$(command -v mawk || command -v awk)

# timed NAME COMMAND... -> "seconds peak-rss-kb" (output to /dev/null)
timed() {
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null
  cat "$work/time"
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# awk: report lines per outcome, the least a script would do.
awk_prog='index($0, "/report/v1?") { if (match($0, /&a=[A-Za-z]+/)) n[substr($0, RSTART + 3, RLENGTH - 3)]++ } END { for (k in n) print k, n[k] }'
ps=(); pr=(); as=(); ar=()
for _ in $(seq 1 "$runs"); do
  read -r s r < <(timed "$pkgctl" fleet report "$log"); ps+=("$s"); pr+=("$r")
  read -r s r < <(timed "$awk_bin" "$awk_prog" "$log"); as+=("$s"); ar+=("$r")
done
"$pkgctl" fleet report "$log" | tail -3
p=$(median "${ps[@]}"); a=$(median "${as[@]}")
printf '%-22s %10s %12s %10s %12s\n' "" "seconds" "lines/s" "MB/s" "peak RSS MB"
for row in "pkgctl fleet report:$p:$(median "${pr[@]}")" "$(basename "$awk_bin") (count outcomes):$a:$(median "${ar[@]}")"; do
  IFS=: read -r name s r <<< "$row"
  awk -v n="$name" -v s="$s" -v r="$r" -v l="$count" -v b="$bytes" \
    'BEGIN { printf "%-22s %10.2f %12.0f %10.1f %12.1f\n", n, s, l / s, b / s / 1048576, r / 1024 }'
done
awk -v p="$p" -v a="$a" 'BEGIN { printf "ratio (pkgctl time / awk time): %.2fx\n", p / a }'
echo "$(( bytes >> 20 )) MB, $count lines; medians of $runs runs"
