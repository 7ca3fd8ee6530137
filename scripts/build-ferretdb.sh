#!/usr/bin/env bash
# build-ferretdb.sh: builds the FerretDB server that the ferretdb engine manages, from its Go
# module (github.com/FerretDB/FerretDB, Apache 2.0) at FERRETDB_VERSION, into /usr/local/bin when
# run as root (a managed server then runs as an unprivileged user, who must reach the binary;
# root's $GOPATH/bin is under /root), else into $GOBIN or $GOPATH/bin (where the engine looks
# after PATH). `make deps` and .ci/run run it; FERRETDB_BIN chooses the directory.
#
# `go install` of the module alone builds a binary that refuses to start: FerretDB embeds its
# version from build/version/version.txt, a file its own build generates. So the module is
# copied out of the module cache, version.txt is written as FerretDB's docs say to write it by
# hand, and the server is built from the copy. Nothing of FerretDB is kept in this repository.
set -euo pipefail
FERRETDB_VERSION=${FERRETDB_VERSION:-v1.24.2}
GO=${GO:-go}
bindir=${FERRETDB_BIN:-}
if [ -z "$bindir" ] && [ "$(id -u)" = 0 ]; then bindir=/usr/local/bin; fi
[ -n "$bindir" ] || bindir=$($GO env GOBIN)
[ -n "$bindir" ] || bindir="$($GO env GOPATH | cut -d: -f1)/bin"
bin="$bindir/ferretdb"
if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -qx "version: $FERRETDB_VERSION"; then
	echo "ferretdb $FERRETDB_VERSION: $bin"
	exit 0
fi
mod=$($GO mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$mod" ] || { echo "build-ferretdb: go mod download of FerretDB $FERRETDB_VERSION failed" >&2; exit 1; }
src=$(mktemp -d)
trap 'chmod -R u+w "$src"; rm -rf "$src"' EXIT
cp -r "$mod/." "$src"
chmod -R u+w "$src"
echo "$FERRETDB_VERSION" >"$src/build/version/version.txt"
echo "enginebench" >"$src/build/version/package.txt"
mkdir -p "$bindir"
(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 $GO build -trimpath -o "$bin.tmp" ./cmd/ferretdb)
mv "$bin.tmp" "$bin"
"$bin" --version | grep -qx "version: $FERRETDB_VERSION" || { echo "build-ferretdb: $bin does not say $FERRETDB_VERSION" >&2; exit 1; }
echo "ferretdb $FERRETDB_VERSION: $bin"
