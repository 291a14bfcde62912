#!/usr/bin/env bash
# A fleet against one static origin: DEVICES simulated devices (separate stores and
# device ids) run the release build of `pkgctl update` against a loopback nginx
# (gzip on, as a CDN would compress), WAVE at a time, and nginx's access log
# measures what each step cost the origin. The bundle: 200 generated files
# (html/js/css/json text and incompressible images), about 1.5 MB.
#   1. first install of v1            requests and bytes per device
#   2. a no-change poll               requests per device, and how many were 304s without a body
#   3. v2 with 5 % of files changed   what a device fetches beyond the manifest: requests per device
#                                     to /deltas/, /objects/, /index/ and zips (target: the one tree
#                                     delta from v1 that pack wrote), its body bytes against that
#                                     delta's size (target 1.0x) and its bytes sent against the gzip
#                                     size of the changed files plus the index (what per-file objects
#                                     cost before tree deltas); files written per device
#   4. rollout of v3 10 -> 50 -> 100 %  share of devices on v3 after each step; devices that moved back
#   5. revoke v3                      devices back on v2
#   6. killed and resumed update      bytes of a killed run plus its rerun against one clean run
#   7. telemetry                      what the outcome reports of steps 1-6 cost: requests and bytes
#                                     per device per update that changed something (left out of 1-6)
#   8. a bad release, watched         v5 fails its health check on 30 % of devices; each round every
#                                     device polls, then `pkgctl fleet watch` (steps 1,5,25,100,
#                                     --interval 0, 5 %): share of all devices that ever ran v5
#                                     (target: at most 2 %), rounds and seconds from the first
#                                     failure report to the halt, devices back on v4
#   9. a good release, watched        v6 passes everywhere: rounds to 100 %, halts (target 0)
#  10. a broken link, watched         v7 passes its health check everywhere, but on 30 % of devices
#                                     the app (`pkgctl resolve --fetch`, the real resolver, during
#                                     the health check) asks for a chunk v7 lacks and the origin
#                                     404s it; `fleet watch ... --max-404-rate 5`: share of all
#                                     devices that ever ran v7 (target at most 2 %), the decision,
#                                     devices back on v6
#  11. two host runtimes              half the devices state runtime 2.4.0, half 3.1.0 (`update
#                                     --runtime`); v8 is packed for 2.x, v9 for >=3.0.0 <4 into one
#                                     manifest: devices on the release of their runtime (target: all),
#                                     devices holding any version of the other runtime (target 0),
#                                     bytes per device; then the 2.x hosts are upgraded to 3.1.0:
#                                     devices on v9 after one run, bytes per upgraded device
#  12. a release failing at launch    v10 installs cleanly everywhere (no health check), but its page
#      (trial by launches), watched   loads a script it lacks; devices run `update --confirm-after-launches
#                                     3 --revert-after-bad-launches 1`, and each device on v10 launches
#                                     its app once a round (the real resolver through the Python binding,
#                                     offline): the trial reverts, the next poll reports `reverted`, and
#                                     `fleet watch` halts on it as on failed installs: share of all devices
#                                     that ever ran v10, rounds and seconds from the first bad launch to
#                                     the halt, devices back on v9
# Usage: bench/fleet.sh [DEVICES] [WAVE]   (default 1000 devices, 8 at a time)
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-1000}
wave=${2:-8}
command -v nginx >/dev/null || scripts/setup --test
swift build -c release --product pkgctl >/dev/null && swift build -c release --product pkgctl-publisher >/dev/null
# Step 12's app launches: the library as shipped (the Swift runtime inside it).
scripts/lib/release-build --product pkgctl-resolver >/dev/null
pkgctl=$PWD/.build/release/pkgctl
export PKGCTL_RESOLVER_LIBRARY=$(scripts/lib/release-build --show-bin-path)/libpkgctl-resolver.so PYTHONPATH=$PWD/Examples/python
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-fleet.XXXXXX")
. bench/lib/static-origin.sh

python3 - "$pkgctl" "$work" "http://127.0.0.1:$port/manifest.json" "$devices" "$wave" <<'PY'
import concurrent.futures, glob, gzip, json, os, random, shutil, signal, statistics, subprocess, sys, time
pkgctl, work, manifest, devices, wave = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
log = os.path.join(work, "access.log")
www = os.path.join(work, "www")
ids = [f"device-{i:04d}" for i in range(devices)]
rng = random.Random(5)
words = "const let function return value state render props module export import div span class".split()

def make_v1(out):
    for i in range(200):
        kind = ["html", "js", "css", "json", "jpg"][i % 5]
        path = os.path.join(out, kind, f"f{i:03d}.{kind}")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        size = rng.randint(2_000, 14_000)
        data = os.urandom(size) if kind == "jpg" else " ".join(rng.choice(words) for _ in range(size // 6)).encode()
        open(path, "wb").write(data)

def derive(src, out, changed, seed):
    shutil.copytree(src, out)
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs)
    picked = random.Random(seed).sample(files, changed)
    for path in picked:
        data = open(path, "rb").read()
        open(path, "wb").write(data[: len(data) // 2] + f" changed {seed} ".encode() + data[len(data) // 2 :])
    return [os.path.relpath(p, out) for p in picked]

def pack(src, version, *extra):
    printed = subprocess.run([pkgctl, "pack", src, "--name", "app", "--version", version, "--out", www, *extra],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
    # A manifest polled within a second of being written has no strong validator
    # (pkgctl then asks unconditionally); wait so the no-change polls can be 304s.
    time.sleep(1.1)
    # "OUT/deltas/BASE-TARGET.pkgdelta  SIZE bytes  from VERSION": the delta's size by base version
    return {line.split()[-1]: int(line.split()[1]) for line in printed.splitlines() if ".pkgdelta" in line}

def kind(uri):
    for prefix, name in (("/deltas/", "delta"), ("/objects/", "object"), ("/index/", "index"), ("/report/", "report")):
        if uri.startswith(prefix):
            return name
    return "zip" if uri.endswith(".zip") else "manifest" if uri.endswith("manifest.json") else "other"

health = {}  # device -> health-check command, for steps 8 and 9
launch_trial = set()  # devices whose updates switch in on trial by launches, for step 12
runtimes = {}  # device -> host runtime it states, for step 11

def update(device, check=True):
    root = os.path.join(work, "stores", device)
    extra = ["--health-check", health[device]] if device in health else []
    extra += ["--runtime", runtimes[device]] if device in runtimes else []
    extra += ["--confirm-after-launches", "3", "--revert-after-bad-launches", "1"] if device in launch_trial else []
    r = subprocess.run([pkgctl, "update", "--quiet", "--root", root, "--manifest", manifest, "--device-id", device, *extra],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0 and device not in health:
        raise SystemExit(f"{device}: {r.stderr.strip()}")
    try:
        return os.readlink(os.path.join(root, "packages", "app", "current"))
    except FileNotFoundError:
        return None

def log_size():
    return os.path.getsize(log) if os.path.exists(log) else 0

def log_since(offset):
    time.sleep(0.3)  # nginx writes its log line after the answer
    with open(log) as f:
        f.seek(offset)
        return [line.split() for line in f if line.strip()]

report_lines = []  # the outcome reports of steps 1-6, counted apart (step 7)

def fleet_run(members=ids):
    before = log_size()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=wave) as pool:
        versions = dict(zip(members, pool.map(update, members)))
    lines = log_since(before)
    report_lines.extend(l for l in lines if kind(l[0]) == "report")
    return versions, [l for l in lines if kind(l[0]) != "report"], time.monotonic() - started

def row(step, text):
    print(f"| {step} | {text} |")

sources = os.path.join(work, "src")
make_v1(os.path.join(sources, "v1"))
changed2 = derive(os.path.join(sources, "v1"), os.path.join(sources, "v2"), 10, 2)
derive(os.path.join(sources, "v2"), os.path.join(sources, "v3"), 10, 3)
derive(os.path.join(sources, "v3"), os.path.join(sources, "v4"), 40, 4)

print(f"devices: {devices}, {wave} at a time, release build, nginx on 127.0.0.1 with gzip\n")
print("| step | result |\n|---|---|")
pack(os.path.join(sources, "v1"), "1")
versions, lines, elapsed = fleet_run()
zip_size = os.path.getsize(glob.glob(os.path.join(www, "zips", "app-1.*.zip"))[0])
row("1. first install of v1", f"{len(lines) / devices:.2f} requests and {sum(int(l[2]) for l in lines) / devices:,.0f} bytes "
    f"per device (zip {zip_size:,} bytes, 200 files); {sum(v == '1' for v in versions.values())} of {devices} on v1; {elapsed:.1f} s")

versions, lines, elapsed = fleet_run()
row("2. no-change poll", f"{len(lines) / devices:.2f} requests per device, {sum(l[1] == '304' for l in lines)} of {len(lines)} "
    f"answered 304, {sum(int(l[2]) for l in lines) / max(len(lines), 1):.0f} bytes each (headers only); {elapsed:.1f} s")

deltas2 = pack(os.path.join(sources, "v2"), "2")
versions, lines, elapsed = fleet_run()
fetched = [l for l in lines if kind(l[0]) != "manifest"]
per_device = sum(int(l[2]) for l in fetched) / devices
body = sum(int(l[3]) for l in fetched) / devices
requests = {k: sum(kind(l[0]) == k for l in fetched) / devices for k in ("delta", "object", "index", "zip", "other")}
delta = deltas2.get("1", 0)
gz = sum(len(gzip.compress(open(os.path.join(sources, "v2", p), "rb").read())) for p in changed2)
# Indexes are content-named (index/NAME-VERSION.<sha256>.json).
index = os.path.getsize(glob.glob(os.path.join(www, "index", "app-2.*.json"))[0])
written = []
for device in ids[:: max(1, devices // 100)]:
    store = os.path.join(work, "stores", device, "packages", "app")
    v1, v2 = os.path.join(store, "1"), os.path.join(store, "2")
    files = [os.path.relpath(os.path.join(d, f), v2) for d, _, fs in os.walk(v2) for f in fs]
    written.append(sum(1 for f in files if not os.path.exists(os.path.join(v1, f))
                       or os.stat(os.path.join(v1, f)).st_ino != os.stat(os.path.join(v2, f)).st_ino))
row("3. v2, 10 of 200 files changed", f"{per_device:,.0f} bytes per device beyond the manifest ({body:,.0f} of bodies, "
    f"the rest headers) in {len(fetched) / devices:.2f} requests: " + ", ".join(f"{n:.2f} {k}" for k, n in requests.items() if n) +
    f"; the tree delta from v1 is {delta:,} bytes: bodies **{body / delta if delta else float('nan'):.2f}x** of it; "
    f"per-file objects would cost {gz:,} gzip bytes of the changed files + {index:,} of index "
    f"(bytes sent {per_device / (gz + index):.3f}x of that; the zip: {os.path.getsize(glob.glob(os.path.join(www, 'zips', 'app-2.*.zip'))[0]):,}); "
    f"{statistics.median(written):.0f} files written per device (median of {len(written)}); "
    f"{sum(v == '2' for v in versions.values())} of {devices} on v2; {elapsed:.1f} s")

pack(os.path.join(sources, "v3"), "3", "--rollout", "10")
on_v3, moved_back = set(), 0
for percent in (10, 50, 100):
    if percent > 10:
        subprocess.run([pkgctl, "rollout", www, "app", str(percent)], check=True, stdout=subprocess.DEVNULL)
    versions, lines, elapsed = fleet_run()
    now = {d for d, v in versions.items() if v == "3"}
    moved_back += len(on_v3 - now)
    on_v3 = now
    row(f"4. rollout of v3 to {percent} %", f"{100 * len(now) / devices:.1f} % of devices on v3 (target {percent} %), "
        f"{moved_back} moved back; {len(lines) / devices:.2f} requests per device; {elapsed:.1f} s")

subprocess.run([pkgctl, "revoke", www, "app", "3"], check=True, stdout=subprocess.DEVNULL)
versions, lines, elapsed = fleet_run()
row("5. revoke v3", f"{sum(v == '2' for v in versions.values())} of {devices} devices back on v2, "
    f"{sum(kind(l[0]) in ('delta', 'object', 'zip') for l in lines)} downloads (v2 was retained); {elapsed:.1f} s")

pack(os.path.join(sources, "v4"), "4")
clean_device, trials = ids[0], []
before = log_size(); update(clean_device)
clean = sum(int(l[2]) for l in log_since(before) if not l[0].endswith("manifest.json"))
for device in ids[1:11]:
    root = os.path.join(work, "stores", device)
    before = log_size()
    process = subprocess.Popen([pkgctl, "update", "--quiet", "--root", root, "--manifest", manifest, "--device-id", device],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0.005, 0.06))
    process.send_signal(signal.SIGKILL); process.wait()
    update(device)
    trials.append(sum(int(l[2]) for l in log_since(before) if not l[0].endswith("manifest.json")) / clean)
row("6. killed and resumed update (v4, 40 files changed)", f"killed run + rerun fetched {statistics.median(trials):.2f}x the bytes "
    f"of one clean run (median of {len(trials)}, max {max(trials):.2f}x; clean: {clean:,} bytes)")

row("7. telemetry (outcome reports of steps 1-6)", f"{len(report_lines)} report requests for {devices} devices, "
    f"{statistics.median(len(l[0]) for l in report_lines):.0f} bytes of target each (median), answered "
    f"{statistics.median(int(l[2]) for l in report_lines):.0f} bytes (nginx's 404); none on a no-change poll")

def watch(min_devices, *extra):
    r = subprocess.run([pkgctl, "fleet", "watch", www, "app", "--log", log, "--steps", "1,5,25,100", "--interval", "0",
                        "--max-failure-rate", "5", "--min-devices", str(min_devices), *extra],
                       stdout=subprocess.PIPE, text=True)
    # 0 advanced, held or done; 2 halted; 3 undecided (fleet watch's exit statuses).
    if r.returncode not in (0, 2, 3):
        raise SystemExit(f"fleet watch exited {r.returncode}")
    return r.stdout.strip()

def ran(version):
    r = subprocess.run([pkgctl, "fleet", "report", "--json", log], check=True, stdout=subprocess.PIPE, text=True)
    releases = json.loads(r.stdout)["releases"]
    return next((x for x in releases if x["package"] == "app" and x["release"] == version), None)

fleet_run()  # every device on v4 first
min_devices = max(3, devices // 200)
for index, device in enumerate(ids):
    health[device] = "exit 1" if index % 10 < 3 else "true"
pack(os.path.join(sources, "v4"), "5", "--rollout", "1")
first_failure, rounds, decision = None, 0, ""
for rounds in range(1, 9):
    started = time.monotonic()
    versions, _, elapsed = fleet_run()
    release = ran("5")
    if first_failure is None and release and release["rollbacks"]:
        first_failure = started
    decision = watch(min_devices)
    if ": halt: " in decision or ": done: " in decision:
        break
halted = time.monotonic()
if ": halt: " not in decision:
    # Not decided within 8 rounds (should not happen since --max-holds): revoke by hand so the
    # next steps can publish, and say so in the row.
    subprocess.run([pkgctl, "revoke", www, "app", "5"], check=True, stdout=subprocess.DEVNULL)
    decision += " (still holding after 8 rounds: revoked by hand)"
versions, _, elapsed = fleet_run()
release = ran("5") or {"devices": 0}
row("8. a bad release (30 % fail), watched", f"{100 * release['devices'] / devices:.1f} % of devices ever ran v5 (target at most 2 %); "
    f"decided after {rounds} round(s), {halted - first_failure if first_failure else float('nan'):.1f} s from the first failure "
    f"report: `{decision}`; then {sum(v == '4' for v in versions.values())} of {devices} on v4")

for device in ids:
    health[device] = "true"
pack(os.path.join(sources, "v2"), "6", "--rollout", "1")
steps_seen, halts = [], 0
for rounds in range(1, 9):
    versions, _, elapsed = fleet_run()
    decision = watch(min_devices)
    steps_seen.append(decision.split(":")[0].split(" at ")[-1] + (" -> " + decision.split("advance to ")[1].split(":")[0] if "advance to" in decision else ""))
    halts += ": halt: " in decision
    if ": done: " in decision or halts:
        break
if ": done: " not in decision and not halts:
    # Not done within 8 rounds: finish by hand so the next rows can pack, and say so in the row.
    subprocess.run([pkgctl, "rollout", www, "app", "100"], check=True, stdout=subprocess.DEVNULL)
    steps_seen.append("still holding after 8 rounds: rolled out to 100 % by hand")
versions, _, _ = fleet_run()
row("9. a good release, watched", f"{rounds} rounds: {'; '.join(steps_seen)}; {halts} halts; "
    f"{sum(v == '6' for v in versions.values())} of {devices} on v6")

origin = manifest.rsplit("/", 1)[0]
for index, device in enumerate(ids):
    app = (f"{pkgctl} resolve --root {os.path.join(work, 'stores', device)} app://www.example.com/app/missing-chunk.js "
           f"--upstream {origin} --fetch > /dev/null; ") if index % 10 < 3 else ""
    health[device] = app + "true"
pack(os.path.join(sources, "v3"), "7", "--rollout", "1", "--route", "www.example.com/app")
rounds, decision = 0, ""
for rounds in range(1, 9):
    fleet_run()
    decision = watch(min_devices, "--max-404-rate", "5")
    if ": halt: " in decision or ": done: " in decision:
        break
if ": halt: " not in decision and ": done: " not in decision:
    subprocess.run([pkgctl, "revoke", www, "app", "7"], check=True, stdout=subprocess.DEVNULL)
    decision += " (still holding after 8 rounds: revoked by hand)"
for device in ids:
    health.pop(device, None)
versions, _, _ = fleet_run()
release = ran("7") or {"devices": 0, "notFoundDevices": 0, "notFound": 0}
row("10. a broken link (30 % meet it), watched", f"{100 * release['devices'] / devices:.1f} % of devices ever ran v7 "
    f"(target at most 2 %); {release['notFoundDevices']} devices reported {release['notFound']} 404s inside the app; "
    f"decided after {rounds} round(s): `{decision}`; then {sum(v == '6' for v in versions.values())} of {devices} on v6")

derive(os.path.join(sources, "v4"), os.path.join(sources, "v5"), 20, 5)
for index, device in enumerate(ids):
    runtimes[device] = "2.4.0" if index % 2 == 0 else "3.1.0"
pack(os.path.join(sources, "v4"), "8", "--runtime", "2.x", "--route", "www.example.com/app")
pack(os.path.join(sources, "v5"), "9", "--runtime", ">=3.0.0 <4", "--route", "www.example.com/app")

def installed(device):
    return set(os.listdir(os.path.join(work, "stores", device, "packages", "app"))) - {"current"}

def payload(lines):
    return sum(int(l[2]) for l in lines if kind(l[0]) in ("delta", "object", "index", "zip"))

versions, lines, _ = fleet_run()
wanted = {device: "8" if runtimes[device].startswith("2.") else "9" for device in ids}
on_own = sum(versions[device] == wanted[device] for device in ids)
crossed = sum(("9" if wanted[device] == "8" else "8") in installed(device) for device in ids)
twos = [device for device in ids if wanted[device] == "8"]
for device in twos:
    runtimes[device] = "3.1.0"
upgraded, upgrade_lines, _ = fleet_run(twos)
row("11. two host runtimes (v8 for 2.x, v9 for >=3.0.0 <4)", f"{on_own} of {devices} devices on their runtime's release "
    f"(target {devices}); {crossed} hold a version of the other runtime (target 0); {payload(lines) / devices:,.0f} bytes "
    f"per device beyond the manifest; after upgrading the {len(twos)} 2.x hosts to 3.1.0, "
    f"{sum(v == '9' for v in upgraded.values())} of them on v9 after one run, {payload(upgrade_lines) / max(len(twos), 1):,.0f} "
    f"bytes per upgraded device")

import pkgctl_resolver, select  # noqa: E402  (Examples/python, on the release build's library)

def launch(device):
    """One start of the device's app: its page as a navigation, then the script the page loads,
    offline; the resolver's close ends the launch and writes it to the store."""
    resolver = pkgctl_resolver.Resolver(os.path.join(work, "stores", device), offline=True)
    for url, accept in (("app://www.example.com/app/index.html", "text/html,*/*;q=0.8"),
                        ("app://www.example.com/app/js/launch.js", "*/*")):
        ended = []
        task = resolver.start("GET", url, headers=[("Accept", accept)], on_end=lambda result, message: ended.append(result))
        for _ in range(200):
            if ended:
                break
            select.select([resolver], [], [], 0.05)
            resolver.dispatch()
        task.stop()
    resolver.close()

for device in ids:
    launch_trial.add(device)  # every host states 3.1.0 since step 11: v10 replaces v9 in its range
bad = os.path.join(sources, "v10")
shutil.copytree(os.path.join(sources, "v5"), bad)
with open(os.path.join(bad, "index.html"), "w") as page:
    page.write('<!doctype html><title>v10</title><script src="js/launch.js"></script>')
pack(bad, "10", "--rollout", "1", "--route", "www.example.com/app", "--runtime", ">=3.0.0 <4")
first_bad, rounds, decision = None, 0, ""
for rounds in range(1, 9):
    started = time.monotonic()
    versions, _, _ = fleet_run()
    on_bad = [device for device, version in versions.items() if version == "10"]
    if on_bad and first_bad is None:
        first_bad = started
    with concurrent.futures.ThreadPoolExecutor(max_workers=wave) as pool:
        list(pool.map(launch, on_bad))
    fleet_run()  # the next poll reports the verdicts
    decision = watch(min_devices, "--runtime", ">=3.0.0 <4")
    if ": halt: " in decision or ": done: " in decision:
        break
halted = time.monotonic()
if ": halt: " not in decision:
    subprocess.run([pkgctl, "revoke", www, "app", "10"], check=True, stdout=subprocess.DEVNULL)
    decision += " (not halted within 8 rounds: revoked by hand)"
versions, _, _ = fleet_run()
release = ran("10") or {"devices": 0, "outcomes": {}}
row("12. a release failing at launch (every device), watched", f"{100 * release['devices'] / devices:.1f} % of devices ever "
    f"ran v10 (target at most 2 %); {release['outcomes'].get('reverted', 0)} reverted by their launches "
    f"({release.get('reverts', {})}); decided after {rounds} round(s), "
    f"{halted - first_bad if first_bad else float('nan'):.1f} s from the first bad launch: `{decision}`; "
    f"then {sum(v == '9' for v in versions.values())} of {devices} on v9")
PY
