# Shared by bench/serve.sh and bench/serve-instructions.sh (source it; needs $pkgctl):
# the same site for pkgctl serve and nginx, so both servers answer the same files.
#   bench_workdir NAME      -> prints a new work folder, readable by nginx's workers
#   free_port               -> prints a free loopback port
#   serve_site WORK         -> WORK/src (4 KB page.html, 100 KB app.js, and chunk.js, a large
#                              bundler chunk whose brotli sibling is about 1.9 MB) packed with
#                              --precompress and installed in WORK/store, and WORK/nginx/app
#                              linking the same installed files (siblings included)
#   nginx_conf WORK PORT TOP -> WORK/nginx.conf serving WORK/nginx on 127.0.0.1:PORT, sendfile on,
#                              brotli_static and gzip_static on (the precompressed siblings, as
#                              pkgctl serves them), no access log; TOP is its first lines
#   ENCODED                  -> the header a browser sends for chunk.js (Accept-Encoding: br, gzip)

bench_workdir() {
  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/pkgctl-$1.XXXXXX")
  chmod 755 "$work"   # nginx workers run as www-data
  echo "$work"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

serve_site() {
  local work=$1
  mkdir -p "$work/src"
  python3 - "$work/src" <<'PY'
import os, random, sys
out = sys.argv[1]
rng = random.Random(7)
words = "const let function return value state render props module export import div span".split()
def text(n):
    s = " ".join(rng.choice(words) for _ in range(n // 4))
    return s[:n]
open(os.path.join(out, "page.html"), "w").write("<!doctype html><title>b</title>" + text(4096 - 31))
open(os.path.join(out, "app.js"), "w").write(text(100 * 1024))
# A minified bundle's mix: identifiers that repeat, string literals and numbers that do not.
names = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz_$") for _ in range(rng.randint(1, 12))) for _ in range(40000)]
parts = []
size = 0
while size < 5_200_000:
    p = rng.choice(("{}.{}({},{});", "var {}=\"{}\"+{};", "function {}({}){{return {}}}", "{}[{}]={};"))
    p = p.format(*(rng.choice(names) if rng.random() < 0.8 else str(rng.randint(0, 10**9)) for _ in range(p.count("{}"))))
    parts.append(p)
    size += len(p)
open(os.path.join(out, "chunk.js"), "w").write("".join(parts))
PY
  "$pkgctl" pack "$work/src" --name bench --version 1 --out "$work/origin" --route bench.local/app --precompress >/dev/null
  "$pkgctl" update --quiet --root "$work/store" --manifest "file://$work/origin/manifest.json"
  mkdir -p "$work/nginx/app"
  ln -s "$work/store/packages/bench/1"/* "$work/nginx/app/"
}

ENCODED="Accept-Encoding: br, gzip"

# nginx's brotli_static module (Debian's libnginx-mod-http-brotli-static), installed when missing.
brotli_module=/usr/lib/nginx/modules/ngx_http_brotli_static_module.so
if [ ! -f "$brotli_module" ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get install -y -qq libnginx-mod-http-brotli-static >/dev/null
fi

nginx_conf() {
  local work=$1 port=$2 top=$3
  cat > "$work/nginx.conf" <<CONF
load_module $brotli_module;
$top
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  tcp_nopush on;
  brotli_static on;
  gzip_static on;
  keepalive_requests 100000;
  client_body_temp_path $work/tmp-body; proxy_temp_path $work/tmp-proxy; fastcgi_temp_path $work/tmp-fcgi;
  uwsgi_temp_path $work/tmp-uwsgi; scgi_temp_path $work/tmp-scgi;
  server { listen 127.0.0.1:$port; root $work/nginx; disable_symlinks off; }
}
CONF
}
