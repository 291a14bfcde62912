# Shared by bench/resolve.sh and bench/abi.sh (source it): a store as `pkgctl update`
# leaves it, with one package `app` 1.0.0 routed at www.example.com/app holding a
# 20 KB js/app.js of random bytes.
#   one_package_store ROOT
one_package_store() {
  local root=$1
  mkdir -p "$root/packages/app/1.0.0/js" "$root/state/packages/app"
  head -c 20000 /dev/urandom > "$root/packages/app/1.0.0/js/app.js"
  ln -s 1.0.0 "$root/packages/app/current"
  cat > "$root/state/packages/app/1.0.0.json" <<JSON
{"entry":{"name":"app","version":"1.0.0","url":"app.zip","sha256":"$(printf '0%.0s' {1..64})","size":0,"routes":["www.example.com/app"]},"installedAt":"2026-01-01T00:00:00Z","index":{"files":{}}}
JSON
}
