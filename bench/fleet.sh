#!/usr/bin/env bash
# A fleet against one static origin: DEVICES simulated devices (separate stores and
# device ids) run the release build of `pkgctl update` against a loopback nginx,
# WAVE at a time, and nginx's access log measures what each step cost the origin:
#   1. first install of v1            requests and bytes per device
#   2. a no-change poll               requests per device, and how many were 304s without a body
#   4. rollout 10 % -> 50 % -> 100 %  share of devices on v2 after each step; devices that moved back
#   5. revoke v2                      devices back on v1
# (Rows 3 and 6, per-file deltas and a resumed delta update, wait for the delta work.)
# Usage: bench/fleet.sh [DEVICES] [WAVE]   (default 1000 devices, 8 at a time)
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-1000}
wave=${2:-8}
command -v nginx >/dev/null || scripts/setup --test
swift build -c release --product pkgctl >/dev/null
pkgctl=$PWD/.build/release/pkgctl
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-fleet.XXXXXX")
chmod 755 "$work"
cleanup() {
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  sleep 0.2; rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/www"
cat > "$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  types { application/zip zip; application/json json; }
  log_format fleet '\$request_uri \$status \$bytes_sent';
  access_log $work/access.log fleet;
  client_body_temp_path $work/tmp-body; proxy_temp_path $work/tmp-proxy; fastcgi_temp_path $work/tmp-fcgi;
  uwsgi_temp_path $work/tmp-uwsgi; scgi_temp_path $work/tmp-scgi;
  server { listen 127.0.0.1:$port; root $work/www; }
}
CONF
nginx -p "$work" -c "$work/nginx.conf"

python3 - "$pkgctl" "$work" "http://127.0.0.1:$port/manifest.json" "$devices" "$wave" <<'PY'
import concurrent.futures, os, subprocess, sys, time
pkgctl, work, manifest, devices, wave = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
log = os.path.join(work, "access.log")
ids = [f"device-{i:04d}" for i in range(devices)]

def publisher(*args):
    subprocess.run([pkgctl, *args], check=True, stdout=subprocess.DEVNULL)

def update(device):
    root = os.path.join(work, "stores", device)
    r = subprocess.run([pkgctl, "update", "--quiet", "--root", root, "--manifest", manifest, "--device-id", device],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{device}: {r.stderr.strip()}")
    try:
        return os.readlink(os.path.join(root, "packages", "demo", "current"))
    except FileNotFoundError:
        return None

def fleet_run():
    """Every device once, WAVE at a time; the access-log lines this step added."""
    before = os.path.getsize(log) if os.path.exists(log) else 0
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=wave) as pool:
        versions = dict(zip(ids, pool.map(update, ids)))
    elapsed = time.monotonic() - started
    time.sleep(0.3)  # nginx writes its log line after the answer
    with open(log) as f:
        f.seek(before)
        lines = [line.split() for line in f if line.strip()]
    return versions, lines, elapsed

def row(step, text):
    print(f"| {step} | {text} |")

print(f"devices: {devices}, {wave} at a time, release build, nginx on 127.0.0.1\n")
print("| step | result |\n|---|---|")
www = os.path.join(work, "www")
publisher("pack", "sample-bundles/demo/1.0.0", "--name", "demo", "--version", "1.0.0", "--out", www, "--route", "www.example.com/app")
versions, lines, elapsed = fleet_run()
zips = [l for l in lines if l[0].endswith(".zip")]
row("1. first install of v1", f"{len(lines) / devices:.2f} requests and {sum(int(l[2]) for l in lines) / devices:,.0f} bytes per device "
    f"({len(zips) / devices:.2f} zip downloads; zip {os.path.getsize(os.path.join(www, 'demo-1.0.0.zip')):,} bytes); "
    f"{sum(v == '1.0.0' for v in versions.values())} of {devices} on v1; {elapsed:.1f} s")

versions, lines, elapsed = fleet_run()
not_modified = [l for l in lines if l[1] == "304"]
row("2. no-change poll", f"{len(lines) / devices:.2f} requests per device, {len(not_modified)} of {len(lines)} answered 304, "
    f"{sum(int(l[2]) for l in lines) / max(len(lines), 1):.0f} bytes each (headers only); {elapsed:.1f} s")

publisher("pack", "sample-bundles/demo/1.1.0", "--name", "demo", "--version", "2.0.0", "--out", www,
          "--route", "www.example.com/app", "--rollout", "10")
on_v2 = set()
moved_back = 0
for percent in (10, 50, 100):
    if percent > 10:
        publisher("rollout", www, "demo", str(percent))
    versions, lines, elapsed = fleet_run()
    now = {d for d, v in versions.items() if v == "2.0.0"}
    moved_back += len(on_v2 - now)
    on_v2 = now
    row(f"4. rollout {percent} %", f"{100 * len(now) / devices:.1f} % of devices on v2 (target {percent} %), "
        f"{moved_back} moved back; {len(lines) / devices:.2f} requests per device; {elapsed:.1f} s")

publisher("revoke", www, "demo", "2.0.0")
versions, lines, elapsed = fleet_run()
row("5. revoke v2", f"{sum(v == '1.0.0' for v in versions.values())} of {devices} devices back on v1, "
    f"{len([l for l in lines if l[0].endswith('.zip')])} zip downloads (v1 was retained); {elapsed:.1f} s")
row("3. v2 with 5 % of files changed", "not measured: per-file deltas are not built yet (full zip per device)")
row("6. killed and resumed update", "not measured: waits for the delta work")
PY
