#!/usr/bin/env bash
# Builds ResolveBench in release mode, makes a store with one package and a
# loopback nginx origin (plain HTTP here: the bench measures the resolver, not TLS),
# and prints median timings. Usage: bench/resolve.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ResolveBench >/dev/null
work=$(mktemp -d /tmp/pkgctl-bench.XXXXXX)
trap '[ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; rm -rf "$work"' EXIT
root=$work/store
. bench/lib/one-package-store.sh
one_package_store "$root"
mkdir -p "$work/origin"
head -c 20000 /dev/urandom > "$work/origin/miss.js"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/nginx.conf" <<CONF
worker_processes 1; pid $work/nginx.pid; error_log $work/error.log;
events {}
http { access_log off; client_body_temp_path $work/cb; proxy_temp_path $work/p; fastcgi_temp_path $work/f; uwsgi_temp_path $work/u; scgi_temp_path $work/s;
  server { listen 127.0.0.1:$port; root $work/origin; } }
CONF
/usr/sbin/nginx -p "$work" -c "$work/nginx.conf"
sleep 0.3
.build/release/ResolveBench "$root" "app://www.example.com/app/js/app.js" \
    "http://127.0.0.1:$port" /dev/null "app://cdn.example.org/miss.js"

# Heap allocations per local hit: DHAT's block count for 3,000 hits minus 2,000 (each run
# starts with 1,000 warm-up hits).
# Debian 12's valgrind cannot read Swift 6's DWARF 5, so it runs a stripped copy.
if command -v valgrind >/dev/null; then
  strip --strip-debug -o "$work/ResolveBench" .build/release/ResolveBench
  blocks() {
    RESOLVE_BENCH_LOCAL_ONLY=$1 valgrind --tool=dhat --dhat-out-file=/dev/null \
      "$work/ResolveBench" "$root" "app://www.example.com/app/js/app.js" 2>&1 |
      sed -n 's/.*Total: *[0-9,]* bytes in \([0-9,]*\) blocks.*/\1/p' | tr -d ,
  }
  b1=$(blocks 1000); b2=$(blocks 2000)
  [ -n "$b1" ] && [ -n "$b2" ] || { echo "valgrind dhat printed no block count" >&2; exit 1; }
  echo "allocations per local hit (valgrind dhat): $(( (b2 - b1) / 1000 )).$(( (b2 - b1) % 1000 / 100 ))"
fi
