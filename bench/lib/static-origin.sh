# Sourced by the bench scripts that need a static origin: nginx on 127.0.0.1 serving
# $work/www with gzip, as docs/PUBLISHING.md advises an origin (objects have no extension,
# so every type is compressed), and an access log of `$request_uri $status
# $bytes_sent $body_bytes_sent` in $work/access.log. Sets $port; the EXIT trap stops
# nginx and removes $work.
#   work=$(mktemp -d ...); . bench/lib/static-origin.sh
chmod 755 "$work"   # nginx workers run as www-data
static_origin_cleanup() {
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  sleep 0.2; rm -rf "$work"
}
trap static_origin_cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/www"
cat > "$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  types { application/zip zip; application/json json; }
  default_type application/octet-stream;
  gzip on; gzip_min_length 256; gzip_types *;
  log_format origin '\$request_uri \$status \$bytes_sent \$body_bytes_sent';
  access_log $work/access.log origin;
  client_body_temp_path $work/tmp-body; proxy_temp_path $work/tmp-proxy; fastcgi_temp_path $work/tmp-fcgi;
  uwsgi_temp_path $work/tmp-uwsgi; scgi_temp_path $work/tmp-scgi;
  server { listen 127.0.0.1:$port; root $work/www; }
}
CONF
nginx -p "$work" -c "$work/nginx.conf"
