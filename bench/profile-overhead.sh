#!/usr/bin/env bash
# The profilers' overhead (issue 34): the Insert Benchmark's l.i1 and qr100 on each engine,
# without profiling and with each kind of it (a CPU profile at two frequencies, the counters),
# the kinds alternated round by round in a rotating order, one run at a time; then each
# step's rate and the DBMS's CPU per operation, medians over the rounds, relative to the runs
# without profiling. docs/performance.md has the figures and the command.
#
#   bench/profile-overhead.sh [--rounds N] [--engines LIST] [--query-seconds S] [--rows-l.i1 N]
#                             [--out DIR] [--enginebench BIN]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=3
engines=postgres,innodb,sqlite,pebble
query_seconds=20
rows_li1=200000
out=
bin=${ENGINEBENCH:-$here/../bin/enginebench}
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --engines) engines=$2; shift 2 ;;
    --query-seconds) query_seconds=$2; shift 2 ;;
    --rows-l.i1) rows_li1=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --enginebench) bin=$2; shift 2 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    *) echo "profile-overhead.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case $rounds in ''|*[!0-9]*|0) echo "profile-overhead.sh: --rounds $rounds: want a count above 0" >&2; exit 2 ;; esac
[ -x "$bin" ] || { echo "profile-overhead.sh: $bin is not built (make build, or --enginebench BIN)" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/profile-overhead.XXXXXX)
mkdir -p "$out"
# A managed server runs as its own user: its data root must be reachable by it.
data=$(mktemp -d /tmp/profile-overhead-data.XXXXXX)
chmod 755 "$data"
trap 'rm -rf "$data"' EXIT

kinds=(off cpu99 cpu499 counters)
flags_of() {
  case $1 in
    off) ;;
    cpu99) echo --cpu-profile=step --cpu-profile-hz=99 ;;
    cpu499) echo --cpu-profile=step --cpu-profile-hz=499 ;;
    counters) echo --counters=all ;;
  esac
}
for r in $(seq 1 "$rounds"); do
  for i in "${!kinds[@]}"; do
    k=${kinds[$(( (i + r - 1) % ${#kinds[@]} ))]}
    dir=$out/r$r-$k
    echo "round $r: $k" >&2
    # shellcheck disable=SC2046
    "$bin" run --scale tiny --engines "$engines" --steps l.i0,l.x,l.i1,qr100 \
      --query-seconds "$query_seconds" --rows-l.i1 "$rows_li1" --no-calibrate \
      --out "$dir" --data-dir "$data/r$r-$k" $(flags_of "$k") >"$dir.log" 2>&1 ||
      { echo "profile-overhead.sh: the $k run of round $r failed: $dir.log" >&2; tail -5 "$dir.log" >&2; exit 1; }
  done
done
python3 "$here/profile_overhead_parse.py" "$out"
