# Sourced by the benches that read Apache Superset's built front-end from its PyPI wheel
# (bench/image-variants.sh, bench/avif-encoders.sh): one pinned release, fetched once.
superset_version=6.1.0
superset_wheel_sha256=4b5886b2d6389a32df790aeae2532ad72529bce1af93b6edf2d1b2a8bf658748

# superset_wheel BENCH: prints the path of the pinned wheel, cached in
# ${XDG_CACHE_HOME:-~/.cache}/pkgctl-bench (fetched from PyPI when missing) and checked against
# its SHA-256; fails with a line naming BENCH when it cannot be had.
superset_wheel() {
  local bench=$1 cache=${XDG_CACHE_HOME:-$HOME/.cache}/pkgctl-bench
  local name=apache_superset-$superset_version-py3-none-any.whl
  mkdir -p "$cache"
  if [ ! -f "$cache/$name" ]; then
    echo "fetching apache-superset $superset_version from PyPI into $cache ..." >&2
    if ! timeout 900 python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        "apache-superset==$superset_version" -d "$cache" >&2 || [ ! -f "$cache/$name" ]; then
      echo "$bench: cannot download apache-superset==$superset_version from PyPI (offline?)." >&2
      echo "Put $name (sha256 $superset_wheel_sha256) in $cache and run again." >&2
      return 1
    fi
  fi
  if [ "$(sha256sum < "$cache/$name" | cut -d' ' -f1)" != "$superset_wheel_sha256" ]; then
    echo "$bench: $cache/$name is not the pinned wheel (sha256 $superset_wheel_sha256); remove it" >&2
    return 1
  fi
  echo "$cache/$name"
}
