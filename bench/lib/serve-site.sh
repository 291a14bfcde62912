# Shared by bench/serve.sh and bench/serve-instructions.sh (source it; needs $pkgctl):
# the same site for pkgctl serve and nginx, so both servers answer the same files.
#   bench_workdir NAME      -> prints a new work folder, readable by nginx's workers
#   free_port               -> prints a free loopback port
#   serve_site WORK         -> WORK/src (4 KB page.html, 100 KB app.js) packed and installed in
#                              WORK/store, and WORK/nginx/app linking the same installed files
#   nginx_conf WORK PORT TOP -> WORK/nginx.conf serving WORK/nginx on 127.0.0.1:PORT, sendfile on,
#                              no access log; TOP is its first lines (workers, daemon)

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
PY
  "$pkgctl" pack "$work/src" --name bench --version 1 --out "$work/origin" --route bench.local/app >/dev/null
  "$pkgctl" update --quiet --root "$work/store" --manifest "file://$work/origin/manifest.json"
  mkdir -p "$work/nginx/app"
  ln -s "$work/store/packages/bench/1"/* "$work/nginx/app/"
}

nginx_conf() {
  local work=$1 port=$2 top=$3
  cat > "$work/nginx.conf" <<CONF
$top
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path $work/tmp-body; proxy_temp_path $work/tmp-proxy; fastcgi_temp_path $work/tmp-fcgi;
  uwsgi_temp_path $work/tmp-uwsgi; scgi_temp_path $work/tmp-scgi;
  server { listen 127.0.0.1:$port; root $work/nginx; disable_symlinks off; }
}
CONF
}
