#!/usr/bin/env bash
# Tree deltas on real releases (issue 22), side by side with OSTree's static deltas
# in one run. Each pair is two consecutive releases of a web front-end as shipped in
# its PyPI wheel (the folder holding the built JS chunks and index.html, main or
# remoteEntry), plus a synthetic tree:
#   streamlit  1.66.0 -> 1.66.1   streamlit/static/            (Vite, name.HASH.js)
#   jupyterlab 4.6.5  -> 4.6.6    jupyterlab/static/           (webpack, N.HASH.js)
#   notebook   7.6.4  -> 7.6.5    notebook/static/             (webpack, N.HASH.js)
#   gradio     6.29.0 -> 6.29.1   gradio/templates/frontend/   (Vite, name-HASH.js)
#   synthetic  14,500 small files (icons and templates from a seed), one ~11 KB html changed
# For each pair:
#   pkgctl   pack A, install A on a fresh store over a loopback nginx (gzip on,
#            gzip_types *), pack B (timed: zip, index, objects and the tree delta),
#            then `pkgctl update` to B under /usr/bin/time -f %M (timed; peak RSS);
#            nginx's access log ($request_uri $status $bytes_sent $body_bytes_sent: bench/lib/static-origin.sh) gives the
#            bytes on the wire (manifest included) and the requests; `pkgctl verify`
#            and diff -r against B check the installed tree. The notes also give the
#            pack of B with --delta-from 0 (what the delta adds to pack's time).
#   OSTree   an archive repo with A and B committed (B's commit timed); `ostree static-delta
#            generate --from=A --to=B` (timed); pack ÷ OSTree is pack's time over B's commit
#            plus the generate, the same publish step (issue 38); its bytes: the superblock and parts under
#            R/deltas plus the fallback objects the delta leaves to be fetched
#            loose (`static-delta show`'s "Total Fallback Size"). No client pull is
#            measured: Debian 12's ostree 2022.7 fetches many of the delta's objects
#            loose again while it applies the delta (a different count each run).
#   zstd     per file of B whose content A lacks: `zstd -19 --long=27 --patch-from=OLD`
#            against the same path in A, else against the file of A with the same
#            name once its content hash is taken out (a dot segment after the first
#            and before the extension of 6+ characters of [A-Za-z0-9_-] with a digit,
#            `_`, `-` or both cases; or Vite's `name-HASH8`), the closest in size,
#            else plain `zstd -19`; the sum of the outputs (no file list counted).
# Bytes are deterministic; the times are medians of RUNS runs (fresh OUT dir, store
# and OSTree repos each run). Wheels are cached in ${TMPDIR:-/tmp}/pkgctl-realdelta-wheels.
# Usage: bench/realdelta.sh [RUNS] [PAIR,...]   (default 1 run, every pair; PKGCTL=path/to/pkgctl
# skips the build)
set -euo pipefail
[ -n "${PKGCTL:-}" ] && PKGCTL=$(realpath "$PKGCTL")
cd "$(dirname "$0")/.."
runs=${1:-1}
only=${2:-}
command -v nginx >/dev/null || scripts/setup --test
if ! command -v ostree >/dev/null || ! command -v zstd >/dev/null; then
  apt-get update && apt-get install -y ostree zstd
fi
command -v python3 >/dev/null || { apt-get update && apt-get install -y python3 python3-pip; }
[ -x /usr/bin/time ] || { apt-get update && apt-get install -y time; }
if [ -n "${PKGCTL:-}" ]; then
  pkgctl=$PKGCTL
else
  swift build -c release --product pkgctl >/dev/null && swift build -c release --product pkgctl-publisher >/dev/null
  pkgctl=$PWD/.build/release/pkgctl
fi
cache=${TMPDIR:-/tmp}/pkgctl-realdelta-wheels
mkdir -p "$cache"
work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-realdelta.XXXXXX")
. bench/lib/static-origin.sh

python3 - "$pkgctl" "$work" "http://127.0.0.1:$port" "$cache" "$runs" "$only" <<'PY'
import concurrent.futures, glob, hashlib, os, random, re, shutil, statistics, subprocess, sys, time, zipfile
pkgctl, work, origin, cache, runs, only = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
www, log = os.path.join(work, "www"), os.path.join(work, "access.log")

# (label, package, version A, version B, where the front-end is in the wheel, in order of preference)
PAIRS = [
    ("streamlit", "streamlit", "1.66.0", "1.66.1", [r"streamlit/static/"]),
    ("jupyterlab", "jupyterlab", "4.6.5", "4.6.6",
     [r"jupyterlab/static/", r"[^/]+\.data/data/share/jupyter/lab/static/"]),
    ("notebook", "notebook", "7.6.4", "7.6.5", [r"notebook/static/"]),
    ("gradio", "gradio", "6.29.0", "6.29.1", [r"gradio/templates/frontend/"]),
    ("synthetic", None, "1", "2", None),
]
if only:
    PAIRS = [p for p in PAIRS if p[0] in only.split(",")]

def run(*args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr.strip()}")
    return done.stdout

def wheel(package, version):
    pattern = os.path.join(cache, f"{package.replace('-', '_')}-{version}-*.whl")
    if not glob.glob(pattern):
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        f"{package}=={version}", "-d", cache], check=True, timeout=600)
    found = glob.glob(pattern)
    if not found:
        raise SystemExit(f"{package} {version}: no wheel in {cache}")
    return found[0]

def front_end(wheel_path, patterns, dest):
    with zipfile.ZipFile(wheel_path) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
        for pattern in patterns:
            prefixes = sorted({m.group(0) for n in names for m in [re.match(pattern, n)] if m})
            for prefix in prefixes:
                files = [n for n in names if n.startswith(prefix)]
                top = {n[len(prefix):] for n in files if "/" not in n[len(prefix):]}
                has_entry = "index.html" in top or any(re.match(r"(main|remoteEntry)\..*\.js$", t) for t in top)
                if sum(n.endswith(".js") for n in files) < 3 or not has_entry:
                    continue
                for n in files:
                    relative = n[len(prefix):]
                    if relative.startswith("/") or ".." in relative.split("/"):
                        raise SystemExit(f"{wheel_path}: unsafe entry {n}")
                    path = os.path.join(dest, relative)
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "wb") as f:
                        f.write(z.read(n))
                return prefix
    raise SystemExit(f"{wheel_path}: no front-end folder matching {patterns}")

def synthetic(dest_a, dest_b):
    rng = random.Random(22)
    words = ("account settings profile save cancel delete confirm the of and to a in for is on with "
             "that by this be from or as at your are you it can will an more not".split())
    tags = ["p", "li", "span", "h3", "label", "small"]
    count = 0
    def write(path, data):
        nonlocal count
        path = os.path.join(dest_a, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        count += 1
    for s in range(40):                                   # 12,000 icons of 0.2-1.2 KB
        for i in range(300):
            points = " ".join(f"{rng.choice('MLCQ')}{rng.randint(0, 24)} {rng.randint(0, 24)}"
                              for _ in range(rng.randint(8, 60)))
            write(f"icons/set{s:02d}/icon-{i:03d}.svg",
                  f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="{points}"/></svg>\n'.encode())
    def page(size, r):
        body = []
        while sum(map(len, body)) < size:
            tag = r.choice(tags)
            body.append(f"  <{tag} class=\"c{r.randint(0, 40)}\">{' '.join(r.choice(words) for _ in range(r.randint(4, 16)))}</{tag}>\n")
        return ("<!doctype html>\n<html>\n<body>\n" + "".join(body) + "</body>\n</html>\n").encode()
    for s in range(25):                                   # 2,500 templates of 1-6 KB
        for i in range(100):
            size = 11_000 if (s, i) == (7, 42) else rng.randint(1_000, 6_000)
            write(f"templates/section{s:02d}/page-{i:03d}.html", page(size, rng))
    assert count == 14_500
    shutil.copytree(dest_a, dest_b)
    changed = os.path.join(dest_b, "templates/section07/page-042.html")
    data = open(changed, "rb").read()
    middle = data.index(b"\n", len(data) // 2) + 1
    with open(changed, "wb") as f:
        f.write(data[:middle] + b'  <p class="notice">Your settings were saved.</p>\n' + data[middle:])

def tree(root):
    files = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            path = os.path.join(d, f)
            files[os.path.relpath(path, root)] = (hashlib.sha256(open(path, "rb").read()).hexdigest(), os.path.getsize(path))
    return files

HASHLIKE = re.compile(r"[A-Za-z0-9_-]{6,64}")
def is_hash(segment):
    return bool(HASHLIKE.fullmatch(segment)) and (re.search(r"[0-9_-]", segment) is not None
                                                   or (segment.lower() != segment and segment.upper() != segment))

def name_key(path):
    directory, _, name = path.rpartition("/")
    segments = name.split(".")
    if len(segments) > 2:
        segments = [segments[0]] + ["*" if is_hash(s) else s for s in segments[1:-1]] + [segments[-1]]
    m = re.fullmatch(r"(.+-)([A-Za-z0-9_-]{8})", segments[0])
    if m and is_hash(m.group(2)):
        segments[0] = m.group(1) + "*"
    return directory + "/" + ".".join(segments)

def zstd_per_file(a_dir, b_dir, a, b):
    contents = {h for h, _ in a.values()}
    by_key = {}
    for path, (_, size) in a.items():
        by_key.setdefault(name_key(path), []).append((path, size))
    jobs = []
    for path, (h, size) in sorted(b.items()):
        if h in contents:
            continue
        old = path if path in a else min(by_key.get(name_key(path), []), key=lambda c: abs(c[1] - size), default=(None,))[0]
        jobs.append((path, old))
    def one(job):
        path, old = job
        args = ["zstd", "-q", "-c", "-19"]
        if old:
            args += ["--long=27", f"--patch-from={os.path.join(a_dir, old)}"]
        out = subprocess.run(args + [os.path.join(b_dir, path)], check=True, capture_output=True).stdout
        return len(out), old is not None
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, jobs))
    return sum(n for n, _ in results), len(jobs), sum(p for _, p in results)

def log_lines():
    time.sleep(0.3)  # nginx writes its log line after the answer
    with open(log) as f:
        return [line.split() for line in f if line.strip()]

def clear_log():
    open(log, "w").close()

def du(root):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)

def timed(*args):
    started = time.monotonic()
    out = run(*args)
    return out, time.monotonic() - started

def pkgctl_run(label, name, a_dir, b_dir, b_version, a_version, run_index):
    out = os.path.join(www, f"{label}-{run_index}")
    store = os.path.join(work, "stores", f"{label}-{run_index}")
    manifest = f"{origin}/{label}-{run_index}/manifest.json"
    # The update's own bytes: its outcome report (one GET, docs/ROLLOUTS.md: Outcome reports) is left out.
    update = [pkgctl, "update", "--quiet", "--no-report", "--root", store, "--manifest", manifest]
    run(pkgctl, "pack", a_dir, "--name", name, "--version", a_version, "--out", out)
    run(*update)
    current = os.path.join(store, "packages", name, "current")
    assert os.readlink(current) == a_version, os.readlink(current)
    printed, pack_s = timed(pkgctl, "pack", b_dir, "--name", name, "--version", b_version, "--out", out)
    deltas = [l.split() for l in printed.splitlines() if ".pkgdelta" in l]
    clear_log()
    rss_file = os.path.join(work, "rss")
    _, update_s = timed("/usr/bin/time", "-f", "%M", "-o", rss_file, *update)
    lines = log_lines()
    rss_kb = int(open(rss_file).read().split()[-1])
    run(pkgctl, "verify", "--root", store)
    assert os.readlink(current) == b_version, os.readlink(current)
    subprocess.run(["diff", "-r", "-q", os.path.join(store, "packages", name, b_version), b_dir], check=True)
    kinds = {k: sum(k in l[0] for l in lines) for k in ("/deltas/", "/objects/", "/index/", ".zip")}
    # The same two packs without deltas, for what the delta adds to pack's time.
    plain = os.path.join(www, f"{label}-{run_index}-plain")
    run(pkgctl, "pack", a_dir, "--name", name, "--version", a_version, "--out", plain, "--delta-from", "0")
    _, plain_s = timed(pkgctl, "pack", b_dir, "--name", name, "--version", b_version, "--out", plain, "--delta-from", "0")
    shutil.rmtree(plain)
    result = dict(wire=sum(int(l[3]) for l in lines), requests=len(lines), kinds=kinds, plain_s=plain_s,
                  delta_file=int(deltas[0][1]) if deltas else None,
                  zip=int(next(l.split() for l in printed.splitlines() if ".zip " in l)[1]),
                  pack_s=pack_s, update_s=update_s, rss_mb=rss_kb / 1024)
    shutil.rmtree(store)
    shutil.rmtree(out)
    return result

def ostree_run(label, a_dir, b_dir, run_index):
    repo = os.path.join(work, f"ostree-{label}-{run_index}")
    run("ostree", f"--repo={repo}", "init", "--mode=archive")
    a_id = run("ostree", "commit", f"--repo={repo}", "-b", "pair", f"--tree=dir={a_dir}", "-s", "A").strip()
    b_id, commit_s = timed("ostree", "commit", f"--repo={repo}", "-b", "pair", f"--tree=dir={b_dir}", "-s", "B")
    b_id = b_id.strip()
    _, generate_s = timed("ostree", "static-delta", "generate", f"--repo={repo}", f"--from={a_id}", f"--to={b_id}")
    shown = run("ostree", "static-delta", "show", f"--repo={repo}", f"{a_id}-{b_id}")
    fallback = int(re.search(r"Total Fallback Size: (\d+)", shown).group(1))
    fallbacks = int(re.search(r"Number of fallback entries: (\d+)", shown).group(1))
    parts = int(re.search(r"Number of parts: (\d+)", shown).group(1))
    files = du(os.path.join(repo, "deltas"))
    shutil.rmtree(repo)
    return dict(bytes=files + fallback, files=files, fallback=fallback, fallbacks=fallbacks, parts=parts,
                generate_s=generate_s, publish_s=commit_s + generate_s)

rows, notes = [], []
for label, package, a_version, b_version, patterns in PAIRS:
    trees = os.path.join(work, "trees", label)
    a_dir, b_dir = os.path.join(trees, a_version), os.path.join(trees, b_version)
    if package:
        where = front_end(wheel(package, a_version), patterns, a_dir)
        front_end(wheel(package, b_version), patterns, b_dir)
        title = f"{label} {a_version} → {b_version}"
    else:
        synthetic(a_dir, b_dir)
        where, title = "generated", "synthetic 14,500 files, 1 html changed"
    a, b = tree(a_dir), tree(b_dir)
    changed = sum(a.get(p, (None,))[0] != h for p, (h, _) in b.items())
    zstd_bytes, new_contents, patched = zstd_per_file(a_dir, b_dir, a, b)
    pk, os_ = [], []
    for i in range(runs):
        pk.append(pkgctl_run(label, package or "synthetic", a_dir, b_dir, b_version, a_version, i))
        os_.append(ostree_run(label, a_dir, b_dir, i))
        print(f"  {label} run {i + 1}/{runs}: pack {pk[-1]['pack_s']:.2f} s ({pk[-1]['plain_s']:.2f} s without deltas), update {pk[-1]['update_s']:.2f} s, "
              f"{pk[-1]['rss_mb']:.0f} MB; ostree generate {os_[-1]['generate_s']:.2f} s, "
              f"commit B + generate {os_[-1]['publish_s']:.2f} s",
              file=sys.stderr, flush=True)
    for key in ("wire", "requests", "delta_file", "zip"):
        if len({r[key] for r in pk}) > 1:
            notes.append(f"{label}: pkgctl {key} differed between runs: {[r[key] for r in pk]}")
    for key in ("bytes",):
        if len({r[key] for r in os_}) > 1:
            notes.append(f"{label}: OSTree {key} differed between runs: {[r[key] for r in os_]}")
    p, o = pk[0], os_[0]
    med = lambda rs, k: statistics.median(r[k] for r in rs)
    rows.append(f"| {title} | {len(b):,} ({changed:,}) | {p['zip']:,} | {p['wire']:,} ({p['requests']}) | {o['bytes']:,} | "
                f"{zstd_bytes:,} | **{p['wire'] / o['bytes']:.2f}x** | {med(pk, 'pack_s'):.2f} | {med(os_, 'generate_s'):.2f} | "
                f"{med(os_, 'publish_s'):.2f} | **{med(pk, 'pack_s') / med(os_, 'publish_s'):.2f}x** | "
                f"{med(pk, 'update_s'):.2f} | {med(pk, 'rss_mb'):.0f} |")
    k = p["kinds"]
    notes.append(f"{label} ({where}; {du(a_dir):,} → {du(b_dir):,} bytes; {new_contents} new contents, {patched} zstd-patched "
                 f"against a predecessor): pkgctl fetched {k['/deltas/']} delta, {k['/objects/']} objects, {k['/index/']} "
                 f"index, {k['.zip']} zip: the delta file ({p['delta_file']:,} bytes) and {p['wire'] - p['delta_file']:,} bytes of "
                 f"manifest; OSTree: superblock and {o['parts']} part(s) {o['files']:,} bytes + {o['fallback']:,} in "
                 f"{o['fallbacks']} fallback object(s) fetched loose; pack of B without deltas (--delta-from 0) "
                 f"{med(pk, 'plain_s'):.2f} s")
    shutil.rmtree(trees)

print(f"\n{runs} run(s); release build; nginx on 127.0.0.1 with gzip on, gzip_types *; times are medians\n")
print("| pair | files (changed) | zip bytes | pkgctl bytes (requests) | OSTree delta bytes | zstd per-file bytes "
      "| pkgctl ÷ OSTree | pack s | ostree generate s | ostree commit B + generate s | pack ÷ OSTree publish "
      "| update s | update peak RSS MB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
print("\n".join(rows))
print()
for note in notes:
    print(f"- {note}")
PY
