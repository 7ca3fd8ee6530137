#!/usr/bin/env bash
# refclients-mongo.sh: the MongoDB reference clients beside enginebench (issue 32). Measures,
# side by side on this machine and one private FerretDB 1.24 server on SQLite, the client CPU
# per operation and the rate of tmcallaghan/iibench-mongodb (Java) and dbpercona/linkbenchX
# (Java, its MongoDB store) and of enginebench doing the same work. Each client's process tree
# runs in a cgroup of its own. --trace runs the server at debug level, whose log of every
# command each client sends is summarised per client. See bench/README.md.
#
#   bench/refclients-mongo.sh setup            build the two Java clients outside the repository, enginebench and mongoshim
#   bench/refclients-mongo.sh [run] [flags]    measure (bench/refclients-mongo.sh --help)
set -Eeuo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PARSE="$ROOT/bench/refclients_mongo_parse.py"

# Where the references and tools are; each can be overridden from the environment.
REF_IIBENCH_SRC=${REF_IIBENCH_SRC:-/tmp/ref/tmcallaghan+iibench-mongodb}
REF_IIBENCH=${REF_IIBENCH:-/work/refbuild/iibench-mongodb}
IIBENCH_DRIVER=${IIBENCH_DRIVER:-4.8.1}
REF_LINKBENCHX_SRC=${REF_LINKBENCHX_SRC:-/tmp/ref/dbpercona+linkbenchX}
REF_LINKBENCHX=${REF_LINKBENCHX:-/work/refbuild/linkbenchX}
LINKBENCHX_DRIVER=${LINKBENCHX_DRIVER:-3.6.0}
ENGINEBENCH=${ENGINEBENCH:-$ROOT/bin/enginebench}
MONGOSHIM=${MONGOSHIM:-$ROOT/bin/mongoshim}
FERRETDB=${FERRETDB:-ferretdb}
PYTHON=${PYTHON:-/usr/bin/python3}
JAVA=${JAVA:-java}

# Sizes and the run's shape (flags).
ROUNDS=2
WORK=iibench,linkbench
CLIENTS=ref,eb
ROWS=20000
INSERT_BATCH=100
CHAR_FIELDS=10
CHAR_LENGTH=1024
COMPRESSIBLE=80
SECONDARY=3
MAXID1=151
LOADERS=1
REQUESTERS=1
REQUESTS=1000
DIST_FILE=$ROOT/bench/testdata/tiny-distribution.dat
PROFILE=fb2011
SETTLE=5
SAMPLE_SECONDS=0.1
CGROUP=auto
OUT=""
KEEP=0
TRACE=0

usage() {
	cat <<EOF
usage: bench/refclients-mongo.sh [run] [flags]    measure the MongoDB reference clients beside enginebench on FerretDB
       bench/refclients-mongo.sh setup            build the Java clients (outside the repository), enginebench and mongoshim

flags (defaults in brackets):
  --rounds N              rounds; each runs every client once, the order alternating [$ROUNDS]
  --work LIST             of iibench,linkbench [$WORK]
  --clients LIST          of ref (the Java clients), eb (enginebench) [$CLIENTS]
  --rows N                iiBench documents (jmongoiibench's documents per collection, enginebench --max-rows) [$ROWS]
  --insert-batch N        iiBench documents per insert [$INSERT_BATCH]
  --char-fields N         iiBench padding fields [$CHAR_FIELDS]
  --char-length N         iiBench bytes per padding field [$CHAR_LENGTH]
  --compressible-pct N    iiBench percent compressible [$COMPRESSIBLE]
  --secondary-indexes N   iiBench secondary indexes (0..3) [$SECONDARY]
  --maxid1 N              LinkBench maxid1 [$MAXID1]
  --loaders N             LinkBench loaders [$LOADERS]
  --requesters N          LinkBench requesters [$REQUESTERS]
  --requests N            LinkBench requests in all (LinkbenchX's requests; enginebench: per requester, divided) [$REQUESTS]
  --distribution-file F   LinkBench CDFs of both clients (LinkbenchX's data_file, enginebench's --distribution-file) [bench/testdata/tiny-distribution.dat]
  --profile NAME          enginebench's LinkBench profile (LinkbenchX's config/FBWorkload.properties is fb2011's) [$PROFILE]
  --settle S              seconds of rest before each client's run [$SETTLE]
  --sample-seconds S      period of the cgroup samples taken during an enginebench run [$SAMPLE_SECONDS]
  --cgroup v1|v2|auto     cgroup accounting [$CGROUP]
  --trace                 FerretDB at --log-level=debug: every command each client sends, summarised in commands/
                          (the figures of such a run are not comparable: the server logs every message)
  --out DIR               results (must not exist) [results/refclients-mongo-<time>]
  --keep                  keep the server's temporary directory (its SQLite files and log)
environment: REF_IIBENCH REF_IIBENCH_SRC IIBENCH_DRIVER REF_LINKBENCHX REF_LINKBENCHX_SRC LINKBENCHX_DRIVER
             ENGINEBENCH MONGOSHIM FERRETDB PYTHON JAVA
EOF
}

die() { echo "refclients-mongo: $*" >&2; exit 2; }
say() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*"; }

posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer, not '$2'"; }
posnum() {
	if [[ ! $2 =~ ^[0-9]+(\.[0-9]+)?$ || $2 =~ ^0+(\.0*)?$ ]]; then die "$1 must be a positive number, not '$2'"; fi
}

parse_flags() {
	while (($#)); do
		case $1 in
		--rounds | --work | --clients | --rows | --insert-batch | --char-fields | --char-length | --compressible-pct | \
			--secondary-indexes | --maxid1 | --loaders | --requesters | --requests | --distribution-file | --profile | \
			--settle | --sample-seconds | --cgroup | --out)
			(($# >= 2)) || die "$1 needs a value"
			set_flag "$1" "$2"
			shift 2
			;;
		--keep) KEEP=1; shift ;;
		--trace) TRACE=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) die "unknown argument '$1' (bench/refclients-mongo.sh --help)" ;;
		esac
	done
	posint --rounds "$ROUNDS"; posint --rows "$ROWS"; posint --insert-batch "$INSERT_BATCH"
	posint --maxid1 "$MAXID1"; posint --loaders "$LOADERS"; posint --requesters "$REQUESTERS"
	posint --requests "$REQUESTS"; posnum --sample-seconds "$SAMPLE_SECONDS"
	[[ $CHAR_FIELDS =~ ^[0-9]+$ && $CHAR_LENGTH =~ ^[0-9]+$ ]] || die "--char-fields and --char-length must be whole numbers"
	[[ $COMPRESSIBLE =~ ^[0-9]+$ ]] && ((COMPRESSIBLE <= 100)) || die "--compressible-pct must be 0..100"
	[[ $SECONDARY =~ ^[0-3]$ ]] || die "--secondary-indexes must be 0..3 (the Java client's)"
	((ROWS % INSERT_BATCH == 0)) || die "--rows must be a multiple of --insert-batch (the Java client inserts whole batches)"
	((REQUESTS % REQUESTERS == 0)) || die "--requests must be a multiple of --requesters (enginebench's are per requester)"
	[[ $SETTLE =~ ^[0-9]+$ ]] || die "--settle must be a whole number of seconds, not '$SETTLE'"
	[[ $CGROUP =~ ^(v1|v2|auto)$ ]] || die "--cgroup must be v1, v2 or auto, not '$CGROUP'"
	[[ -f $DIST_FILE && -r $DIST_FILE ]] || die "--distribution-file $DIST_FILE is not a readable file"
	DIST_FILE=$(realpath "$DIST_FILE")
	local w
	for w in ${WORK//,/ }; do [[ $w =~ ^(iibench|linkbench)$ ]] || die "unknown work '$w' (of iibench,linkbench)"; done
	for w in ${CLIENTS//,/ }; do [[ $w =~ ^(ref|eb)$ ]] || die "unknown client '$w' (of ref,eb)"; done
	[[ -n ${WORK//,/} && -n ${CLIENTS//,/} ]] || die "--work and --clients must not be empty"
}

set_flag() {
	case $1 in
	--rounds) ROUNDS=$2 ;; --work) WORK=$2 ;; --clients) CLIENTS=$2 ;; --rows) ROWS=$2 ;;
	--insert-batch) INSERT_BATCH=$2 ;; --char-fields) CHAR_FIELDS=$2 ;; --char-length) CHAR_LENGTH=$2 ;;
	--compressible-pct) COMPRESSIBLE=$2 ;; --secondary-indexes) SECONDARY=$2 ;; --maxid1) MAXID1=$2 ;;
	--loaders) LOADERS=$2 ;; --requesters) REQUESTERS=$2 ;; --requests) REQUESTS=$2 ;;
	--distribution-file) DIST_FILE=$2 ;; --profile) PROFILE=$2 ;; --settle) SETTLE=$2 ;;
	--sample-seconds) SAMPLE_SECONDS=$2 ;; --cgroup) CGROUP=$2 ;; --out) OUT=$2 ;;
	esac
}

has_work() { [[ ,$WORK, == *,$1,* ]]; }
has_client() { [[ ,$CLIENTS, == *,$1,* ]]; }

# ---- cgroups (as refclients.sh: v1 cpuacct.usage in ns, or v2 cpu.stat usage_usec) ----------

cg_detect() {
	local v1 v2
	v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuacct(,|$)/ { print $2; exit }' /proc/mounts)
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	case $CGROUP in
	v1) [[ -n $v1 ]] || die "no cgroup v1 hierarchy with cpuacct is mounted"; CG_KIND=v1 CG_ROOT=$v1 ;;
	v2) [[ -n $v2 ]] || die "no cgroup v2 hierarchy is mounted"; CG_KIND=v2 CG_ROOT=$v2 ;;
	auto)
		if [[ -n $v1 ]]; then CG_KIND=v1 CG_ROOT=$v1
		elif [[ -n $v2 ]]; then CG_KIND=v2 CG_ROOT=$v2
		else die "no cgroup hierarchy with CPU accounting is mounted (v1 cpuacct or v2)"; fi
		;;
	esac
	[[ -w $CG_ROOT ]] || die "cannot create cgroups under $CG_ROOT"
}

# cg_read VAR CGROUP: VAR = the cgroup's CPU time in nanoseconds. No fork: the sampler calls it.
cg_read() {
	local -n _v=$1
	local k n
	if [[ $CG_KIND == v1 ]]; then
		read -r _v <"$2/cpuacct.usage"
	else
		while read -r k n; do
			if [[ $k == usage_usec ]]; then _v=$((n * 1000)); return; fi
		done <"$2/cpu.stat"
	fi
}

# cg_exec CGROUP CMD...: moves this (sub)shell into CGROUP, then runs CMD (a function) or becomes it.
cg_exec() {
	local cg=$1
	shift
	echo "$BASHPID" >"$cg/cgroup.procs"
	if declare -F "$1" >/dev/null; then "$@"; else exec "$@"; fi
}

# cg_kill CGROUP: ends every process left in the cgroup (only the rig's are in it), removes it.
cg_kill() {
	local cg=$1 pid i
	[[ -d $cg ]] || return 0
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		local pids=()
		while read -r pid; do pids+=("$pid"); done <"$cg/cgroup.procs"
		((${#pids[@]})) || break
		if ((i == 1)); then kill -TERM "${pids[@]}" 2>/dev/null || true
		elif ((i == 15)); then kill -KILL "${pids[@]}" 2>/dev/null || true; fi
		sleep 0.2
	done
	rmdir "$cg" 2>/dev/null || echo "refclients-mongo: could not remove cgroup $cg" >&2
}

# sweep_cgroups: removes the empty cgroups of earlier rigs killed before their cleanup.
sweep_cgroups() {
	local d pid
	for d in "$CG_ROOT"/refclients-mongo-*; do
		[[ -d $d ]] || continue
		pid=${d##*-}
		if [[ ! $pid =~ ^[0-9]+$ ]] || kill -0 "$pid" 2>/dev/null; then continue; fi
		rmdir "$d"/*/ 2>/dev/null || true
		if rmdir "$d" 2>/dev/null; then echo "refclients-mongo: removed the stale cgroup $d"; fi
	done
}

# ---- the private server and the shim ---------------------------------------------------------

SERVER_PID=""
SHIM_PID=""
SAMPLER_PID=""
W=""

# start_server: one FerretDB on SQLite, its state and SQLite files in the rig's temporary
# directory, on a free loopback port (FerretDB 1.24 on SQLite has no authentication: 127.0.0.1
# only, and it is stopped at the end), with no debug listener and no telemetry.
start_server() {
	local level=info
	((TRACE)) && level=debug
	mkdir -p "$W/state" "$W/sqlite" "$CG_BASE/server"
	SERVER_LOG=$W/ferretdb.log
	: >"$SERVER_LOG" # before the server's subshell opens it: the loop below reads it at once
	cg_exec "$CG_BASE/server" setpriv --pdeathsig TERM -- "$FERRETDB" --handler=sqlite \
		--listen-addr=127.0.0.1:0 --state-dir="$W/state" --sqlite-url="file:$W/sqlite/" \
		--debug-addr=- --telemetry=disable --log-level="$level" --log-format=text \
		>"$SERVER_LOG" 2>&1 </dev/null &
	SERVER_PID=$!
	local i
	PORT=""
	for ((i = 0; i < 300; i++)); do
		PORT=$(sed -n 's/.*msg="Listening on TCP 127\.0\.0\.1:\([0-9]*\)\.\.\.".*/\1/p' "$SERVER_LOG" | head -1)
		[[ -n $PORT ]] && break
		kill -0 "$SERVER_PID" 2>/dev/null || { tail -5 "$SERVER_LOG" >&2; die "ferretdb exited at start"; }
		sleep 0.1
	done
	[[ -n $PORT ]] || die "ferretdb did not listen within 30 s (log: $SERVER_LOG)"
	URI="mongodb://127.0.0.1:$PORT/"
	say "server up: $(ferret_version) on SQLite, pid $SERVER_PID, 127.0.0.1:$PORT, log level $level"
}

# start_shim: mongoshim in front of the server, for both LinkBench clients (bench/README.md:
# LinkbenchX's 3.x driver sends buildinfo over OP_QUERY and "ns" in createIndexes).
start_shim() {
	mkdir -p "$CG_BASE/shim"
	: >"$W/shim.out"
	cg_exec "$CG_BASE/shim" setpriv --pdeathsig TERM -- "$MONGOSHIM" -upstream "127.0.0.1:$PORT" -listen 127.0.0.1:0 \
		>"$W/shim.out" 2>"$OUT/logs/mongoshim.log" </dev/null &
	SHIM_PID=$!
	local i
	SHIM_PORT=""
	for ((i = 0; i < 300; i++)); do
		SHIM_PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$W/shim.out")
		[[ -n $SHIM_PORT ]] && break
		kill -0 "$SHIM_PID" 2>/dev/null || { cat "$OUT/logs/mongoshim.log" >&2; die "mongoshim exited at start"; }
		sleep 0.1
	done
	[[ -n $SHIM_PORT ]] || die "mongoshim did not listen within 30 s"
	SHIM_URI="mongodb://127.0.0.1:$SHIM_PORT/"
	say "mongoshim up: 127.0.0.1:$SHIM_PORT -> 127.0.0.1:$PORT"
}

stop_proc() {
	local pid=$1 i
	[[ -n $pid ]] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 300; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
}

ferret_version() {
	local v
	v=$("$FERRETDB" --version)
	sed -n 's/^version: //p' <<<"$v"
}

drop_db() { "$MONGOSHIM" -upstream "127.0.0.1:$PORT" -drop "$1" || die "could not drop the database $1"; }

# ---- measuring (as refclients.sh) ------------------------------------------------------------

RUN_SEQ=0

# log_mark NAME: the server log's length, so that each client's slice of it can be cut out.
log_mark() { stat -c %s "$SERVER_LOG" >"$W/mark.$1"; }

# log_slice NAME: the server log written since log_mark NAME, into logs/NAME.ferretdb.log (--trace).
log_slice() {
	((TRACE)) || return 0
	local from
	from=$(<"$W/mark.$1")
	tail -c +"$((from + 1))" "$SERVER_LOG" >"$OUT/logs/$1.ferretdb.log"
	"$PYTHON" "$PARSE" commands "$OUT/logs/$1.ferretdb.log" >"$OUT/commands/$1.txt"
}

# measure NAME LOG CMD...: runs CMD in a new cgroup; sets M_CLIENT_NS, M_SERVER_NS, M_SHIM_NS.
measure() {
	local name=$1 log=$2
	shift 2
	RUN_SEQ=$((RUN_SEQ + 1))
	local cg="$CG_BASE/c$RUN_SEQ" s0 s1 h0 h1 rc=0
	mkdir "$cg"
	cg_read s0 "$CG_BASE/server"
	cg_read h0 "$CG_BASE/shim"
	cg_exec "$cg" "$@" >"$log" 2>&1 &
	wait $! || rc=$?
	cg_read s1 "$CG_BASE/server"
	cg_read h1 "$CG_BASE/shim"
	cg_read M_CLIENT_NS "$cg"
	M_SERVER_NS=$((s1 - s0))
	M_SHIM_NS=$((h1 - h0))
	cg_kill "$cg"
	if ((rc != 0)); then
		tail -5 "$log" >&2
		echo "refclients-mongo: $name failed with status $rc (log: $log)" >&2
		exit 1
	fi
}

# sampler CGROUP: every SAMPLE_SECONDS, the time and the CPU of CGROUP, the server and the shim.
sampler() {
	local cg=$1 u s h tick
	exec {tick}<>"$W/tick"
	while :; do
		cg_read u "$cg"
		cg_read s "$CG_BASE/server"
		cg_read h "$CG_BASE/shim"
		printf '%s %s %s %s\n' "$EPOCHREALTIME" "$u" "$s" "$h"
		read -r -t "$SAMPLE_SECONDS" -u "$tick" _ || true
	done
}

# measure_eb NAME LOG SAMPLES CMD...: measure, with the cgroups sampled during the run.
measure_eb() {
	local name=$1 log=$2 samples=$3
	shift 3
	RUN_SEQ=$((RUN_SEQ + 1))
	local cg="$CG_BASE/c$RUN_SEQ" rc=0 u s h
	mkdir "$cg"
	sampler "$cg" >"$samples" &
	SAMPLER_PID=$!
	cg_exec "$cg" "$@" >"$log" 2>&1 &
	wait $! || rc=$?
	kill "$SAMPLER_PID" 2>/dev/null || true
	wait "$SAMPLER_PID" 2>/dev/null || true
	SAMPLER_PID=""
	cg_read u "$cg"
	cg_read s "$CG_BASE/server"
	cg_read h "$CG_BASE/shim"
	printf '%s %s %s %s\n' "$EPOCHREALTIME" "$u" "$s" "$h" >>"$samples"
	cg_kill "$cg"
	if ((rc != 0)); then
		tail -5 "$log" >&2
		echo "refclients-mongo: $name failed with status $rc (log: $log)" >&2
		exit 1
	fi
}

# record ROUND WORK CLIENT OPS SECONDS CLIENT_NS SERVER_NS SHIM_NS [RUNJSON_CPU_S]
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "${9:--}" >>"$OUT/results.tsv"
	say "$(printf '%-10s %-18s ops %s in %ss: client %s us/op, server %s us/op' "$2" "$3" "$4" "$5" \
		"$(per_op "$6" "$4")" "$(per_op "$7" "$4")")"
}

per_op() { awk -v n="$1" -v o="$2" 'BEGIN { if (o > 0) printf "%.2f", n / 1000 / o; else printf "-" }'; }

# parse ARRAY SUBCOMMAND ARGS...: ARRAY = the fields of the parser's line.
parse() {
	local -n _a=$1
	shift
	local o
	o=$("$PYTHON" "$PARSE" "$@")
	read -r -a _a <<<"$o"
}

# ---- iiBench: jmongoiibench and enginebench --------------------------------------------------

# iibench_java: jmongoiibench's 21 arguments in its order (jmongoiibench.java:94-116), as
# run.simple.bash passes them: one writer, insert only (0 queries per interval), no rate limit,
# feedback every second, the collection dropped and created (Y).
iibench_java() {
	env -C "$W/cwd" "$JAVA" -cp "$REF_IIBENCH/jars/*:$REF_IIBENCH/classes" jmongoiibench \
		iibench purchases_index 1 "$ROWS" "$INSERT_BATCH" -1 1 "$W/cwd/iibench.tsv" 100000 0 15 10 1000000 999999 \
		"$CHAR_FIELDS" "$CHAR_LENGTH" "$SECONDARY" "$COMPRESSIBLE" Y 0 "$URI"
}

iibench_ref() {
	local r=$1 f log
	log=$OUT/logs/r$r.iibench.java.log
	log_mark "r$r.iibench.java"
	measure "jmongoiibench" "$log" iibench_java
	log_slice "r$r.iibench.java"
	parse f ib-java "$log"
	record "$r" iibench jmongoiibench "${f[0]}" "${f[1]}" "$M_CLIENT_NS" "$M_SERVER_NS" 0
	drop_db iibench
}

iibench_eb() {
	local r=$1 line dir
	dir=$OUT/eb/r$r.iibench
	log_mark "r$r.iibench.enginebench"
	measure_eb "enginebench iibench" "$OUT/logs/r$r.iibench.enginebench.log" "$OUT/logs/r$r.iibench.enginebench.samples" \
		"$ENGINEBENCH" run iibench --engines ferretdb --dsn "$URI" --drop-existing --no-calibrate \
		--insert-threads 1 --max-rows "$ROWS" --insert-batch "$INSERT_BATCH" --char-fields "$CHAR_FIELDS" \
		--char-length "$CHAR_LENGTH" --compressible-pct "$COMPRESSIBLE" --secondary-indexes "$SECONDARY" \
		--query-threads 0 --db-pid "$SERVER_PID" --data-dir "$W/sqlite" --out "$dir"
	log_slice "r$r.iibench.enginebench"
	while read -r -a line; do
		record "$r" iibench enginebench "${line[1]}" "${line[2]}" "${line[3]}" "${line[4]}" "${line[5]}" "${line[6]}"
	done < <("$PYTHON" "$PARSE" eb "$dir/run.json" "$OUT/logs/r$r.iibench.enginebench.samples" run)
}

# ---- LinkBench: LinkbenchX and enginebench, both through mongoshim ---------------------------

# linkbenchx -l|-r: the fork's own launcher (bin/linkbench, run from its directory) with its
# MongoDB configuration, through the shim; JAVA_HOME is setup's wrapper that drops the
# launcher's -Xincgc, which Java 9 and later refuse.
linkbenchx() {
	env -C "$REF_LINKBENCHX" JAVA_HOME="$REF_LINKBENCHX/rig-java" bin/linkbench -c config/LinkConfigMongoDBv2.properties \
		-D host=127.0.0.1 -D port="$SHIM_PORT" -D dbid=linkdb0 -D maxid1="$MAXID1" -D loaders="$LOADERS" \
		-D requesters="$REQUESTERS" -D requests="$REQUESTS" -D data_file="$DIST_FILE" "$@"
}

linkbench_ref() {
	local r=$1 f log
	drop_db linkdb0
	log_mark "r$r.linkbench.java"
	log=$OUT/logs/r$r.linkbench.java.load.log
	measure "LinkbenchX load" "$log" linkbenchx -l
	parse f lbx-load "$log"
	record "$r" lb-load linkbenchx "${f[0]}" "${f[1]}" "$M_CLIENT_NS" "$M_SERVER_NS" "$M_SHIM_NS"
	log=$OUT/logs/r$r.linkbench.java.request.log
	measure "LinkbenchX requests" "$log" linkbenchx -r
	log_slice "r$r.linkbench.java"
	parse f lbx-req "$log"
	record "$r" linkbench linkbenchx "${f[0]}" "${f[1]}" "$M_CLIENT_NS" "$M_SERVER_NS" "$M_SHIM_NS"
	drop_db linkdb0
}

linkbench_eb() {
	local r=$1 line work dir
	dir=$OUT/eb/r$r.linkbench
	log_mark "r$r.linkbench.enginebench"
	measure_eb "enginebench linkbench" "$OUT/logs/r$r.linkbench.enginebench.log" "$OUT/logs/r$r.linkbench.enginebench.samples" \
		"$ENGINEBENCH" run linkbench --engines ferretdb --dsn "$SHIM_URI" --drop-existing --no-calibrate \
		--profile "$PROFILE" --distribution-file "$DIST_FILE" --maxid1 "$MAXID1" --loaders "$LOADERS" \
		--requesters "$REQUESTERS" --requests "$((REQUESTS / REQUESTERS))" --intervals 1 --interval-seconds 100000 \
		--db-pid "$SERVER_PID" --data-dir "$W/sqlite" --out "$dir"
	log_slice "r$r.linkbench.enginebench"
	while read -r -a line; do
		work=linkbench
		[[ ${line[0]} == load ]] && work=lb-load
		record "$r" "$work" enginebench "${line[1]}" "${line[2]}" "${line[3]}" "${line[4]}" "${line[5]}" "${line[6]}"
	done < <("$PYTHON" "$PARSE" eb "$dir/run.json" "$OUT/logs/r$r.linkbench.enginebench.samples" load run)
}

# ---- checks, setup, main ---------------------------------------------------------------------

preflight() {
	((EUID == 0)) || die "run as root: the rig creates cgroups"
	cg_detect
	command -v "$FERRETDB" >/dev/null || die "ferretdb not found (make deps builds FerretDB 1.24.2)"
	local version
	version=$("$FERRETDB" --version 2>/dev/null) || die "$FERRETDB --version failed"
	[[ $version == *"version: v1.24."* ]] || die "$FERRETDB is not FerretDB 1.24"
	command -v setpriv >/dev/null || die "setpriv is not installed (apt-get install util-linux)"
	[[ -x $MONGOSHIM ]] || die "no mongoshim at $MONGOSHIM (bench/refclients-mongo.sh setup)"
	"$PYTHON" -c 'import sys; assert sys.version_info >= (3, 8)' 2>/dev/null || die "$PYTHON is not Python 3.8 or later"
	if has_client eb; then
		[[ -x $ENGINEBENCH ]] || die "no enginebench binary at $ENGINEBENCH (make build, or bench/refclients-mongo.sh setup)"
	fi
	if has_client ref; then
		command -v "$JAVA" >/dev/null || die "java is not installed (apt-get install default-jdk)"
		if has_work iibench; then
			[[ -r $REF_IIBENCH/classes/jmongoiibench.class ]] || die "no built jmongoiibench at $REF_IIBENCH (bench/refclients-mongo.sh setup)"
		fi
		if has_work linkbench; then
			[[ -r $REF_LINKBENCHX/target/FacebookLinkBench.jar && -x $REF_LINKBENCHX/rig-java/bin/java ]] ||
				die "no built LinkbenchX at $REF_LINKBENCHX (bench/refclients-mongo.sh setup)"
		fi
	fi
	if [[ -z $OUT ]]; then OUT=$ROOT/results/refclients-mongo-$(date +%Y%m%d-%H%M%S); fi
	[[ ! -e $OUT ]] || die "--out $OUT exists"
}

# setup: jmongoiibench compiled as run.simple.bash compiles it (javac --release 11) against the
# driver jars its README names; LinkbenchX copied and built with Maven, its mongo-java-driver
# 2.13.1 replaced in the copy's pom.xml by LINKBENCHX_DRIVER (FerretDB refuses 2.x's OP_QUERY:
# bench/README.md), and a java wrapper for its launcher; enginebench and mongoshim.
setup() {
	((EUID == 0)) || die "run as root"
	[[ -r $REF_IIBENCH_SRC/src/jmongoiibench.java ]] || die "no iibench-mongodb checkout at $REF_IIBENCH_SRC (set REF_IIBENCH_SRC)"
	say "building jmongoiibench in $REF_IIBENCH against mongodb-driver-sync $IIBENCH_DRIVER"
	mkdir -p "$REF_IIBENCH/jars" "$REF_IIBENCH/classes"
	local a
	for a in mongodb-driver-sync mongodb-driver-core bson; do
		(cd "$REF_IIBENCH" && mvn -B -q -Dstyle.color=never dependency:copy \
			-Dartifact="org.mongodb:$a:$IIBENCH_DRIVER" -DoutputDirectory="$REF_IIBENCH/jars")
	done
	javac --release 11 -nowarn -d "$REF_IIBENCH/classes" -cp "$REF_IIBENCH/jars/*" "$REF_IIBENCH_SRC/src/jmongoiibench.java"
	if [[ ! -r $REF_LINKBENCHX/pom.xml ]]; then
		[[ -r $REF_LINKBENCHX_SRC/pom.xml ]] || die "no linkbenchX checkout at $REF_LINKBENCHX_SRC (set REF_LINKBENCHX_SRC)"
		say "copying $REF_LINKBENCHX_SRC to $REF_LINKBENCHX"
		mkdir -p "$(dirname "$REF_LINKBENCHX")"
		cp -r "$REF_LINKBENCHX_SRC" "$REF_LINKBENCHX"
		chmod -R u+w "$REF_LINKBENCHX"
	fi
	grep -q '<artifactId>mongo-java-driver</artifactId>' "$REF_LINKBENCHX/pom.xml" || die "$REF_LINKBENCHX/pom.xml names no mongo-java-driver"
	sed -i "/<artifactId>mongo-java-driver<\/artifactId>/{n;s|<version>[^<]*</version>|<version>$LINKBENCHX_DRIVER</version>|}" \
		"$REF_LINKBENCHX/pom.xml"
	say "building LinkbenchX in $REF_LINKBENCHX with mongo-java-driver $LINKBENCHX_DRIVER (mvn clean package, tests skipped)"
	(cd "$REF_LINKBENCHX" && mvn -B -q -Dstyle.color=never -DskipTests clean package)
	mkdir -p "$REF_LINKBENCHX/rig-java/bin"
	cat >"$REF_LINKBENCHX/rig-java/bin/java" <<-EOF
		#!/usr/bin/env bash
		# bench/refclients-mongo.sh: bin/linkbench passes -Xincgc, which Java 9 and later refuse; drop it.
		args=()
		for a; do [[ \$a == -Xincgc ]] || args+=("\$a"); done
		exec $(command -v "$JAVA") "\${args[@]}"
	EOF
	chmod +x "$REF_LINKBENCHX/rig-java/bin/java"
	say "building enginebench and mongoshim into $ROOT/bin"
	(cd "$ROOT" && go build -o "$ENGINEBENCH" ./cmd/enginebench && go build -o "$MONGOSHIM" ./bench/mongoshim)
	say "setup done"
}

cleanup() {
	local status=$?
	trap - EXIT INT TERM
	if [[ -n $SAMPLER_PID ]]; then kill "$SAMPLER_PID" 2>/dev/null || true; fi
	if [[ -n ${CG_BASE:-} && -d $CG_BASE ]]; then
		local cg
		for cg in "$CG_BASE"/c*; do [[ -d $cg ]] && cg_kill "$cg"; done
		stop_proc "$SHIM_PID"
		cg_kill "$CG_BASE/shim"
		stop_proc "$SERVER_PID"
		if [[ -n $W && -f $W/ferretdb.log && -n ${OUT:-} && -d $OUT/logs ]]; then
			grep -E 'level=(WARN|ERROR)' "$W/ferretdb.log" | tail -50 >"$OUT/logs/ferretdb.warnings" || true
		fi
		cg_kill "$CG_BASE/server"
		rmdir "$CG_BASE" 2>/dev/null || echo "refclients-mongo: could not remove cgroup $CG_BASE" >&2
	fi
	if [[ -n $W && -d $W ]]; then
		if ((KEEP)); then echo "kept: $W"; else rm -rf "$W"; fi
	fi
	exit "$status"
}

main() {
	if [[ ${1:-} == setup ]]; then
		shift
		(($# == 0)) || die "setup takes no arguments"
		setup
		return
	fi
	[[ ${1:-} == run ]] && shift
	parse_flags "$@"
	preflight
	mkdir -p "$OUT/logs" "$OUT/eb" "$OUT/commands"
	printf 'round\twork\tclient\tops\tseconds\tclient_ns\tserver_ns\tshim_ns\trunjson_client_cpu_s\n' >"$OUT/results.tsv"
	W=$(mktemp -d "${TMPDIR:-/tmp}/refclients-mongo.XXXXXX")
	mkdir -p "$W/cwd"
	mkfifo "$W/tick"
	sweep_cgroups
	CG_BASE=$CG_ROOT/refclients-mongo-$$
	trap cleanup EXIT
	trap 'echo "refclients-mongo: interrupted" >&2; exit 130' INT TERM
	mkdir "$CG_BASE"
	say "cgroup accounting: $CG_KIND at $CG_BASE; results in $OUT"
	start_server
	if has_work linkbench; then start_shim; else mkdir -p "$CG_BASE/shim"; fi
	{
		echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo), $(uname -r)"
		echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "ferretdb: $(ferret_version), SQLite, 127.0.0.1 only"
		echo "java: $("$JAVA" -version 2>&1 | head -1)"
		echo "flags: rounds=$ROUNDS work=$WORK clients=$CLIENTS rows=$ROWS insert_batch=$INSERT_BATCH char_fields=$CHAR_FIELDS" \
			"char_length=$CHAR_LENGTH compressible=$COMPRESSIBLE secondary=$SECONDARY maxid1=$MAXID1 loaders=$LOADERS" \
			"requesters=$REQUESTERS requests=$REQUESTS profile=$PROFILE distribution=$DIST_FILE trace=$TRACE"
	} >"$OUT/machine.txt"
	local r c
	for ((r = 1; r <= ROUNDS; r++)); do
		local order=(ref eb)
		((r % 2 == 0)) && order=(eb ref)
		local w
		for w in iibench linkbench; do
			has_work $w || continue
			for c in "${order[@]}"; do
				has_client "$c" || continue
				sleep "$SETTLE"
				say "round $r: $w, $([[ $c == ref ]] && echo the Java client || echo enginebench)"
				"${w}_$c" "$r"
			done
		done
	done
	echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
	echo
	"$PYTHON" "$PARSE" summary "$OUT/results.tsv" | tee "$OUT/summary.txt"
	echo
	echo "results: $OUT (results.tsv, summary.txt, machine.txt, logs/, eb/ run directories$( ((TRACE)) && echo ', commands/'))"
}

main "$@"
