#!/usr/bin/env bash
# refclients.sh: the client at the floor (issue 18). Measures, side by side on this machine and
# one private MariaDB server, the client CPU per operation and the rate of the reference clients
# (iibench.py of mdcallag/mytools, the Java LinkBench of mdcallag/linkbench) and of enginebench
# doing the same work. Each client's process tree runs in a cgroup of its own, so that its CPU
# time is read exactly. See bench/README.md.
#
#   bench/refclients.sh setup            build the Java LinkBench copy, fetch its socket jars, build enginebench
#   bench/refclients.sh [run] [flags]    measure (bench/refclients.sh --help)
#   bench/refclients.sh check [flags]    check what the run needs, start nothing
set -Eeuo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PARSE="$ROOT/bench/refclients_parse.py"

# Where the references and tools are; each can be overridden from the environment.
REF_IIBENCH=${REF_IIBENCH:-/tmp/ref/mdcallag+mytools/bench/ibench/iibench.py}
REF_PYTHON=${REF_PYTHON:-/usr/bin/python3}
REF_LINKBENCH_SRC=${REF_LINKBENCH_SRC:-/tmp/ref/mdcallag+linkbench}
REF_LINKBENCH=${REF_LINKBENCH:-/work/refbuild/linkbench}
REF_JARS=${REF_JARS:-$REF_LINKBENCH/rig-jars}
JUNIXSOCKET_VERSION=${JUNIXSOCKET_VERSION:-2.10.1}
ENGINEBENCH=${ENGINEBENCH:-$ROOT/bin/enginebench}
MARIADBD=${MARIADBD:-/usr/sbin/mariadbd}
MARIADB=${MARIADB:-mariadb}
MARIADB_DUMP=${MARIADB_DUMP:-mariadb-dump}

# Sizes and the run's shape (flags).
ROUNDS=2
WORK=l.i0,qr100,qp100,linkbench
REFS=iibench.py,java
ROWS=1000000
QUERY_SECONDS=60
MAXID1=200001
LOADERS=4
REQUESTERS=4
REQUESTS=250000
DIST_FILE=""
SETTLE=10
SAMPLE_SECONDS=0.1
CGROUP=auto
OUT=""
KEEP=0
PROFILE=0
SERVER_SET=()

usage() {
	cat <<EOF
usage: bench/refclients.sh [run] [flags]    measure the reference clients beside enginebench
       bench/refclients.sh setup            build what the rig runs (Java LinkBench, socket jars, enginebench)
       bench/refclients.sh check [flags]    check what a run with these flags needs; start nothing

flags (defaults in brackets):
  --rounds N            rounds; each runs every client once, the order alternating [$ROUNDS]
  --work LIST           of l.i0,qr100,qp100,linkbench [$WORK]
  --refs LIST           reference clients beside enginebench: of iibench.py,java, none, or auto
                        (those installed) [$REFS]
  --rows N              l.i0 rows (iibench.py --max_rows, enginebench --rows) [$ROWS]
  --query-seconds S     qr100/qp100: writers write 100 x S rows (iibench.py --max_rows=100xS) [$QUERY_SECONDS]
  --maxid1 N            LinkBench maxid1 [$MAXID1]
  --loaders N           LinkBench loaders [$LOADERS]
  --requesters N        LinkBench requesters [$REQUESTERS]
  --requests N          LinkBench requests per requester [$REQUESTS]
  --distribution-file F LinkBench: the CDFs of both clients (the fork's data_file, enginebench's
                        --distribution-file) instead of the fork's config/Distribution.dat
  --settle S            seconds of rest before each client's sequence [$SETTLE]
  --sample-seconds S    period of the cgroup samples taken during an enginebench run [$SAMPLE_SECONDS]
  --server-set N=V      a server setting of the private server (enginebench's innodb.N=V; repeatable)
  --cgroup v1|v2|auto   cgroup accounting: v1 cpuacct or v2 cpu.stat [$CGROUP]
  --out DIR             results (must not exist) [results/refclients-<time>]
  --keep                keep the server's temporary directory (data directory, log)
  --server-profile S    perf record of the server for S seconds from the start of each client's
                        LinkBench requests (perf/)
environment: REF_IIBENCH REF_PYTHON REF_LINKBENCH REF_LINKBENCH_SRC REF_JARS ENGINEBENCH MARIADBD
EOF
}

die() { echo "refclients: $*" >&2; exit 2; }
say() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*"; }

posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer, not '$2'"; }
posnum() {
	if [[ ! $2 =~ ^[0-9]+(\.[0-9]+)?$ || $2 =~ ^0+(\.0*)?$ ]]; then die "$1 must be a positive number, not '$2'"; fi
}

parse_flags() {
	while (($#)); do
		case $1 in
		--rounds | --work | --refs | --rows | --query-seconds | --maxid1 | --loaders | --requesters | --requests | \
			--distribution-file | \
			--settle | --sample-seconds | --server-set | --server-profile | --cgroup | --out)
			(($# >= 2)) || die "$1 needs a value"
			set_flag "$1" "$2"
			shift 2
			;;
		--keep) KEEP=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) die "unknown argument '$1' (bench/refclients.sh --help)" ;;
		esac
	done
	posint --rounds "$ROUNDS"; posint --rows "$ROWS"; posint --query-seconds "$QUERY_SECONDS"
	posint --maxid1 "$MAXID1"; posint --loaders "$LOADERS"; posint --requesters "$REQUESTERS"
	posint --requests "$REQUESTS"; posnum --sample-seconds "$SAMPLE_SECONDS"
	[[ $PROFILE =~ ^[0-9]+$ ]] || die "--server-profile must be a whole number of seconds, not '$PROFILE'"
	[[ $SETTLE =~ ^[0-9]+$ ]] || die "--settle must be a whole number of seconds, not '$SETTLE'"
	[[ $CGROUP =~ ^(v1|v2|auto)$ ]] || die "--cgroup must be v1, v2 or auto, not '$CGROUP'"
	if [[ -n $DIST_FILE ]]; then
		# Absolute: the fork resolves a relative data_file against its own directory.
		[[ -f $DIST_FILE && -r $DIST_FILE ]] || die "--distribution-file $DIST_FILE is not a readable file"
		DIST_FILE=$(realpath "$DIST_FILE")
	fi
	local w
	for w in ${WORK//,/ }; do
		[[ $w =~ ^(l\.i0|qr100|qp100|linkbench)$ ]] || die "unknown work '$w' (of l.i0,qr100,qp100,linkbench)"
	done
	[[ -n ${WORK//,/} ]] || die "--work is empty"
	if [[ $REFS != none && $REFS != auto ]]; then
		for w in ${REFS//,/ }; do
			[[ $w =~ ^(iibench\.py|java)$ ]] || die "unknown reference client '$w' (of iibench.py,java, none or auto)"
		done
		[[ -n ${REFS//,/} ]] || die "--refs is empty (none runs enginebench alone)"
	fi
}

set_flag() {
	case $1 in
	--rounds) ROUNDS=$2 ;; --work) WORK=$2 ;; --refs) REFS=$2 ;; --rows) ROWS=$2 ;; --query-seconds) QUERY_SECONDS=$2 ;;
	--maxid1) MAXID1=$2 ;; --loaders) LOADERS=$2 ;; --requesters) REQUESTERS=$2 ;; --requests) REQUESTS=$2 ;;
	--distribution-file) DIST_FILE=$2 ;;
	--settle) SETTLE=$2 ;; --server-profile) PROFILE=$2 ;; --sample-seconds) SAMPLE_SECONDS=$2 ;; --cgroup) CGROUP=$2 ;; --out) OUT=$2 ;;
	--server-set)
		[[ $2 =~ ^[A-Za-z0-9_-]+=.*$ ]] || die "--server-set wants NAME=VALUE, not '$2'"
		SERVER_SET+=(--set "innodb.$2")
		;;
	esac
}

has_work() { [[ ,$WORK, == *,$1,* ]]; }
insert_work() { has_work l.i0 || has_work qr100 || has_work qp100; }
has_ref() { [[ ,$REFS, == *,$1,* ]]; }

# ---- cgroups ---------------------------------------------------------------------------------
# CG_KIND is v1 (cpuacct.usage, ns) or v2 (cpu.stat usage_usec); CG_ROOT where its hierarchy is
# mounted; CG_BASE this run's parent cgroup, with server/ and one child per measured client.

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

# cg_read VAR CGROUP: VAR = the cgroup's CPU time in nanoseconds (user + system, every process
# that ran in it, including those that have exited). No fork: the sampler calls it.
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

# cg_exec CGROUP CMD...: moves this (sub)shell into CGROUP and runs CMD there (a function) or
# becomes it (a program); its children stay in the cgroup. Called as `cg_exec ... &`, so that
# only the background subshell moves.
cg_exec() {
	local cg=$1
	shift
	echo "$BASHPID" >"$cg/cgroup.procs"
	if declare -F "$1" >/dev/null; then "$@"; else exec "$@"; fi
}

# cg_kill CGROUP: ends every process left in the cgroup (only processes this rig started are
# in it), then removes it.
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
	rmdir "$cg" 2>/dev/null || echo "refclients: could not remove cgroup $cg" >&2
}

# sweep_cgroups: removes the empty cgroups of earlier rigs that were killed before their
# cleanup (SIGKILL); a cgroup that still holds a process is left alone.
sweep_cgroups() {
	local d pid
	for d in "$CG_ROOT"/refclients-*; do
		[[ -d $d ]] || continue
		pid=${d##*-}
		if [[ ! $pid =~ ^[0-9]+$ ]] || kill -0 "$pid" 2>/dev/null; then continue; fi
		rmdir "$d"/*/ 2>/dev/null || true
		if rmdir "$d" 2>/dev/null; then echo "refclients: removed the stale cgroup $d"; fi
	done
}

# ---- the private server ----------------------------------------------------------------------

SERVER_PID=""
SAMPLER_PID=""
WATCHER_PID=""
W=""

# start_server: enginebench initialises a managed InnoDB server with its defaults (and
# --server-set) in W/eb and keeps it (--keep); we start mariadbd on that data directory and
# option file, on a socket in a directory only mysql and root can open, with no TCP. The
# option file's socket and tmpdir name the bootstrap's private socket directory, which is
# gone when the bootstrap run ends: the command line gives the rig's own (it overrides the
# option file), and the kept option file stays as enginebench wrote it.
start_server() {
	say "initialising the server with enginebench's managed InnoDB defaults"
	if ! "$ENGINEBENCH" run insert --engines innodb --scale tiny --steps l.i0 --rows 100 --keep \
		--data-dir "$W/eb" --out "$W/bootstrap" "${SERVER_SET[@]}" >"$OUT/logs/server-bootstrap.log" 2>&1; then
		tail -5 "$OUT/logs/server-bootstrap.log" >&2
		die "enginebench could not initialise the server (log: $OUT/logs/server-bootstrap.log)"
	fi
	DATADIR=$W/eb/innodb
	SOCK=$W/sock/mysqld.sock
	install -d -m 0700 -o mysql -g mysql "$W/sock" "$W/tmp"
	grep -q '^skip-networking$' "$DATADIR/my.cnf" || die "the option file has networking on: $DATADIR/my.cnf"
	grep -v -E '^(datadir|socket|pid-file|tmpdir)=' "$DATADIR/my.cnf" >"$OUT/server-settings.cnf"
	say "server settings (also in $OUT/server-settings.cnf):"
	grep -v '^#' "$OUT/server-settings.cnf" | paste -sd' ' | fold -s -w 110 | sed 's/^/    /'
	mkdir "$CG_BASE/server"
	# As the mysql user, with a parent-death signal: a killed rig leaves no server running.
	cg_exec "$CG_BASE/server" setpriv --reuid=mysql --regid=mysql --init-groups --pdeathsig TERM -- \
		"$MARIADBD" --defaults-file="$DATADIR/my.cnf" --socket="$SOCK" --tmpdir="$W/tmp" \
		>>"$DATADIR/server.log" 2>&1 &
	SERVER_PID=$!
	local i
	for ((i = 0; i < 600; i++)); do
		if sql -e 'SELECT 1' >/dev/null 2>&1; then break; fi
		kill -0 "$SERVER_PID" 2>/dev/null || { tail -5 "$DATADIR/server.log" >&2; die "mariadbd exited at start"; }
		sleep 0.1
	done
	((i < 600)) || die "mariadbd did not accept connections within 60 s (log: $DATADIR/server.log)"
	sql -e 'DROP DATABASE IF EXISTS enginebench; RESET MASTER'
	say "server up: $(sql -N -e 'SELECT VERSION()'), pid $SERVER_PID, socket in a 0700 directory, no TCP"
}

# stop_server: SIGTERM (InnoDB's fast shutdown), at most 60 s; then whatever is left in the
# server's cgroup is killed.
stop_server() {
	if [[ -n $SERVER_PID ]]; then
		kill -TERM "$SERVER_PID" 2>/dev/null || true
		local i
		for ((i = 0; i < 600; i++)); do
			kill -0 "$SERVER_PID" 2>/dev/null || break
			sleep 0.1
		done
		SERVER_PID=""
	fi
	cg_kill "$CG_BASE/server"
}

sql() { "$MARIADB" --no-defaults -S "$SOCK" -uroot "$@"; }

fresh_db() { sql -e "DROP DATABASE IF EXISTS $1; RESET MASTER; CREATE DATABASE $1"; }

# dump_ddl DB TABLE...: the tables' CREATE TABLE, without AUTO_INCREMENT=N.
dump_ddl() {
	local db=$1
	shift
	"$MARIADB_DUMP" --no-defaults -S "$SOCK" -uroot --no-data --skip-comments --compact --skip-add-drop-table \
		"$db" "$@" | sed -E 's/ AUTO_INCREMENT=[0-9]+//'
}

# status_counters FILE: the server's statement counters (SHOW GLOBAL STATUS), for the
# statements each client sent and the rows the server read and wrote for them (logs/*.statements).
STATUS_VARS="'Questions','Queries','Com_stmt_prepare','Com_stmt_execute','Com_stmt_close','Com_stmt_reset',\
'Com_stmt_fetch','Com_select','Com_insert','Com_update','Com_delete','Com_begin','Com_commit','Com_rollback',\
'Com_set_option','Com_show_status','Com_show_variables','Com_change_db','Bytes_received','Bytes_sent',\
'Connections','Threads_created','Binlog_commits','Innodb_buffer_pool_read_requests','Innodb_log_writes',\
'Created_tmp_tables','Select_scan','Select_range','Sort_rows'"
status_counters() {
	sql -N -B -e "SHOW GLOBAL STATUS WHERE Variable_name IN ($STATUS_VARS) OR Variable_name LIKE 'Handler\_%' \
OR Variable_name LIKE 'Innodb\_rows\_%'" >"$1"
	server_sched >>"$1"
}

# server_sched: the server's user and system CPU time (its cgroup, ns) and its threads' context
# switches, voluntary (a wait) and not (preempted): the sums over the threads it has now (the
# kernel keeps no count for a thread that has ended; the server keeps its connection threads
# in its thread cache).
server_sched() {
	local t k v vol=0 invol=0 user sys
	for t in /proc/"$SERVER_PID"/task/*/status; do
		while read -r k v; do
			case $k in
			voluntary_ctxt_switches:) vol=$((vol + v)) ;;
			nonvoluntary_ctxt_switches:) invol=$((invol + v)) ;;
			esac
		done <"$t" 2>/dev/null || true
	done
	if [[ $CG_KIND == v1 ]]; then
		read -r user <"$CG_BASE/server/cpuacct.usage_user"
		read -r sys <"$CG_BASE/server/cpuacct.usage_sys"
	else
		while read -r k v; do
			case $k in user_usec) user=$((v * 1000)) ;; system_usec) sys=$((v * 1000)) ;; esac
		done <"$CG_BASE/server/cpu.stat"
	fi
	printf 'server_user_ns\t%s\nserver_system_ns\t%s\nserver_voluntary_cs\t%s\nserver_involuntary_cs\t%s\n' \
		"$user" "$sys" "$vol" "$invol"
}

# statements NAME BEFORE AFTER: the counters' increase over a client's sequence.
statements() {
	awk 'NR == FNR { a[$1] = $2; next } { printf "%-20s %d\n", $1, $2 - a[$1] }' "$2" "$3" >"$OUT/logs/$1.statements"
	rm -f "$2" "$3"
}

# digests_reset, digests NAME: the server's statements by shape (performance_schema's digest
# summary: executions, rows examined, sent and affected, time) since the reset, into
# logs/NAME.digests.
# Without performance_schema the file is empty.
digests_reset() { sql -e 'TRUNCATE TABLE performance_schema.events_statements_summary_by_digest' || true; }
digests() {
	sql -B -e "SELECT COUNT_STAR AS n, SUM_ROWS_EXAMINED AS examined, SUM_ROWS_SENT AS sent,
ROUND(SUM_TIMER_WAIT / 1e6) AS us, SUM_ROWS_AFFECTED AS affected, SUM_SELECT_SCAN AS scans,
SUM_CREATED_TMP_TABLES AS tmp, SUM_SORT_ROWS AS sorted, SCHEMA_NAME AS db, LEFT(DIGEST_TEXT, 300) AS statement
FROM performance_schema.events_statements_summary_by_digest ORDER BY COUNT_STAR DESC" >"$OUT/logs/$1.digests" || true
}

# profile NAME: with --server-profile S, for S seconds: perf record of every thread of the
# server (cpu-clock at 499 Hz, call graphs) into perf/NAME.data, and the whole machine's
# scheduler counters (CPU time, context switches, migrations, page faults) into
# perf/NAME.machine.stat (perf stat -p would miss the threads a process starts after it).
# In the background.
profile() {
	((PROFILE > 0)) || return 0
	local f=$OUT/perf/$1
	perf record -q -e cpu-clock -F 499 -g -p "$SERVER_PID" -o "$f.data" -- sleep "$PROFILE" >"$f.log" 2>&1 &
	echo "$!" >>"$W/perf.pids"
	perf stat -x, -e task-clock,context-switches,cpu-migrations,page-faults -a -o "$f.machine.stat" \
		-- sleep "$PROFILE" >>"$f.log" 2>&1 &
	echo "$!" >>"$W/perf.pids"
}

# profile_reports: each profile's functions by their own share (perf/NAME.txt), once every
# client has run.
profile_reports() {
	((PROFILE > 0)) || return 0
	local f p
	if [[ -s $W/perf.pids ]]; then # the profiles still running (children of the watchers)
		while read -r p; do
			while kill -0 "$p" 2>/dev/null; do sleep 0.2; done
		done <"$W/perf.pids"
	fi
	for f in "$OUT"/perf/*.data; do
		[[ -e $f ]] || continue
		perf report -i "$f" --stdio --no-children --sort sym 2>/dev/null | head -120 >"${f%.data}.txt" || true
	done
}

# follow LOG PATTERN CMD...: runs CMD once a line of LOG matches PATTERN (a glob), reading the
# log as the client writes it; forks nothing while it waits. In the background.
follow() {
	local log=$1 pat=$2 fd tick line part=""
	shift 2
	exec {tick}<>"$W/tick" {fd}<"$log"
	while :; do
		if ! IFS= read -r line <&"$fd"; then # the end of the log for now; line is a partial line
			part+=$line
			read -r -t 0.002 -u "$tick" _ || true
			continue
		fi
		line=$part$line part=""
		# shellcheck disable=SC2053 # PATTERN is a glob
		if [[ $line == $pat ]]; then
			"$@"
			return
		fi
	done
}

# eb_requests LOG NAME: while enginebench runs, the server's counters from its load's end
# ("load: ok", some milliseconds before run.1 starts) to its request interval's line, which
# it writes after the verification of the last step: logs/NAME.statements holds the requests'
# statements and the verification's reads (a scan of every table); and the profile from
# run.1's start.
eb_requests() {
	local log=$1 name=$2
	follow "$log" "* load: ok *" status_counters "$W/rq0"
	follow "$log" "* run.1: started*" profile "$name"
	follow "$log" "* run.1: [a-z]* in *" status_counters "$W/rq1"
	statements "$name" "$W/rq0" "$W/rq1"
}

# ---- measuring -------------------------------------------------------------------------------

RUN_SEQ=0

# measure NAME LOG CMD...: runs CMD in a new cgroup; sets M_CLIENT_NS (its CPU time) and
# M_SERVER_NS (the server's over the same time).
measure() {
	local name=$1 log=$2
	shift 2
	RUN_SEQ=$((RUN_SEQ + 1))
	local cg="$CG_BASE/c$RUN_SEQ" s0 s1 rc=0
	mkdir "$cg"
	cg_read s0 "$CG_BASE/server"
	# In the background, waited for: a signal to the rig interrupts the wait at once (its trap
	# then ends every process of the client's cgroup).
	cg_exec "$cg" "$@" >"$log" 2>&1 &
	wait $! || rc=$?
	cg_read s1 "$CG_BASE/server"
	cg_read M_CLIENT_NS "$cg"
	M_SERVER_NS=$((s1 - s0))
	cg_kill "$cg"
	if ((rc != 0)); then
		tail -5 "$log" >&2
		echo "refclients: $name failed with status $rc (log: $log)" >&2
		exit 1
	fi
}

# sampler CGROUP FILE: every SAMPLE_SECONDS, the time and the CPU of CGROUP and of the server.
sampler() {
	local cg=$1 u s tick
	exec {tick}<>"$W/tick" # a FIFO nobody writes: read -t on it is a sleep without a fork
	while :; do
		cg_read u "$cg"
		cg_read s "$CG_BASE/server"
		printf '%s %s %s\n' "$EPOCHREALTIME" "$u" "$s"
		read -r -t "$SAMPLE_SECONDS" -u "$tick" _ || true
	done
}

# measure_eb NAME LOG SAMPLES CMD...: as measure, with the cgroup sampled during the run so that
# each step's window can be cut out of it.
measure_eb() {
	local name=$1 log=$2 samples=$3
	shift 3
	RUN_SEQ=$((RUN_SEQ + 1))
	local cg="$CG_BASE/c$RUN_SEQ" rc=0 u s
	mkdir "$cg"
	sampler "$cg" >"$samples" &
	SAMPLER_PID=$!
	: >"$log"
	if [[ -n ${EB_REQUESTS:-} ]]; then
		eb_requests "$log" "$EB_REQUESTS" &
		WATCHER_PID=$!
	fi
	cg_exec "$cg" "$@" >"$log" 2>&1 &
	wait $! || rc=$?
	kill "$SAMPLER_PID" 2>/dev/null || true
	wait "$SAMPLER_PID" 2>/dev/null || true
	SAMPLER_PID=""
	if [[ -n $WATCHER_PID ]]; then
		# The log is whole now: the watcher reads it to its end within moments; a log without
		# its lines (a failed run) leaves it waiting, and it is ended.
		local i
		for ((i = 0; rc == 0 && i < 100; i++)); do
			kill -0 "$WATCHER_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill "$WATCHER_PID" 2>/dev/null || true
		wait "$WATCHER_PID" 2>/dev/null || true
		WATCHER_PID=""
	fi
	cg_read u "$cg"
	cg_read s "$CG_BASE/server"
	printf '%s %s %s\n' "$EPOCHREALTIME" "$u" "$s" >>"$samples"
	cg_kill "$cg"
	if ((rc != 0)); then
		tail -5 "$log" >&2
		echo "refclients: $name failed with status $rc (log: $log)" >&2
		exit 1
	fi
}

# parse ARRAY SUBCOMMAND ARGS...: ARRAY = the fields of refclients_parse.py's line (a failure
# ends the rig).
parse() {
	local -n _a=$1
	shift
	local o
	o=$("$REF_PYTHON" "$PARSE" "$@")
	read -r -a _a <<<"$o"
}

# record ROUND WORK CLIENT OPS SECONDS CLIENT_NS SERVER_NS [RUNJSON_CPU_S]
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "${8:--}" >>"$OUT/results.tsv"
	say "$(printf '%-10s %-12s ops %s in %ss: client %s us/op, server %s us/op' "$2" "$3" "$4" "$5" \
		"$(per_op "$6" "$4")" "$(per_op "$7" "$4")")"
}

# per_op NS OPS: microseconds per op, or - without ops.
per_op() {
	awk -v n="$1" -v o="$2" 'BEGIN { if (o > 0) printf "%.2f", n / 1000 / o; else printf "-" }'
}

# ---- the Insert Benchmark: iibench.py and enginebench ----------------------------------------

iibench() {
	env -C "$W/cwd" "$REF_PYTHON" "$REF_IIBENCH" --dbms=mysql --db_name=ib --secs_per_report=1 --db_host=localhost \
		--db_user=root --db_password= --engine=innodb --engine_options= --unique_checks=1 --bulk_load=0 \
		--db_socket="$SOCK" --table_name=pi1 --data_length_min=10 --data_length_max=20 --dbopt=none --my_id=1 "$@"
}

# insert_ref ROUND: iibench.py's steps as cl.repro.sh runs them, each process measured.
insert_ref() {
	local r=$1 log f
	fresh_db ib
	log=$OUT/logs/r$r.iibench.l.i0.log
	measure "iibench.py l.i0" "$log" iibench --setup --max_rows="$ROWS" --num_secondary_indexes=0 \
		--rows_per_commit=100 --inserts_per_second=0 --query_threads=0
	parse f iibench "$log"
	record "$r" l.i0 iibench.py "${f[0]}" "${f[2]}" "$M_CLIENT_NS" "$M_SERVER_NS"
	has_work qr100 || has_work qp100 || { dump_ddl ib pi1 >"$OUT/ddl/insert.iibench.r$r.sql"; return; }
	measure "iibench.py l.x" "$OUT/logs/r$r.iibench.l.x.log" iibench --secondary_at_end --max_rows=100 \
		--num_secondary_indexes=3 --rows_per_commit=100 --inserts_per_second=0 --query_threads=0
	local step
	for step in qr100 qp100; do
		has_work $step || continue
		local pk=()
		[[ $step == qp100 ]] && pk=(--query_pk_only)
		log=$OUT/logs/r$r.iibench.$step.log
		measure "iibench.py $step" "$log" iibench --delete_per_insert "${pk[@]}" --max_rows=$((100 * QUERY_SECONDS)) \
			--num_secondary_indexes=3 --rows_per_commit=50 --inserts_per_second=100 --query_threads=1
		parse f iibench "$log"
		record "$r" $step iibench.py "${f[1]}" "${f[2]}" "$M_CLIENT_NS" "$M_SERVER_NS"
	done
	dump_ddl ib pi1 >"$OUT/ddl/insert.iibench.r$r.sql"
}

# insert_eb ROUND: the same steps in one enginebench run; each step's CPU is cut out of the
# cgroup samples over the step's window in run.json. --keep: on --dsn enginebench drops its
# tables when it ends, and the rig dumps them after it (fresh_db drops them before the next).
insert_eb() {
	local r=$1 steps=l.i0 want=(l.i0) line out
	if has_work qr100 || has_work qp100; then steps+=,l.x; fi
	has_work qr100 && { steps+=,qr100; want+=(qr100); }
	has_work qp100 && { steps+=,qp100; want+=(qp100); }
	fresh_db ib
	local dir=$OUT/eb/r$r.insert
	ENGINEBENCH_DSN="root@unix($SOCK)/ib" measure_eb "enginebench insert" "$OUT/logs/r$r.enginebench.insert.log" \
		"$OUT/logs/r$r.enginebench.insert.samples" "$ENGINEBENCH" run insert --engines innodb --clients 1 \
		--rows "$ROWS" --query-seconds "$QUERY_SECONDS" --steps "$steps" --db-pid "$SERVER_PID" \
		--data-dir "$DATADIR" --keep --out "$dir"
	out=$("$REF_PYTHON" "$PARSE" eb "$dir/run.json" "$OUT/logs/r$r.enginebench.insert.samples" "${want[@]}")
	while read -r -a line; do
		record "$r" "${line[0]}" enginebench "${line[1]}" "${line[2]}" "${line[3]}" "${line[4]}" "${line[5]}"
	done <<<"$out"
	dump_ddl ib pi1 >"$OUT/ddl/insert.enginebench.r$r.sql"
}

# ---- LinkBench: the Java fork and enginebench ------------------------------------------------

# linkbench_java -l|-r: the fork's own launcher (bin/linkbench, run from its directory as its
# README says) with its MySQL configuration; the connection goes through the server's unix
# socket with junixsocket's socket factory for Connector/J, added to the class path through the
# launcher's CONF_DIR. The fork builds its JDBC URL as host:port/?options, so the socket
# options ride in "port" and the dummy rigx= takes the "/" the fork appends.
linkbench_java() {
	local cp
	cp=$(printf '%s:' "$REF_JARS"/*.jar)
	env -C "$REF_LINKBENCH" CONF_DIR="${cp%:}" bin/linkbench -c config/LinkConfigMysql.properties \
		-D host=localhost -D user=root -D password= \
		-D "port=3306/?socketFactory=org.newsclub.net.mysql.AFUNIXDatabaseSocketFactoryCJ&junixsocket.file=$SOCK&elideSetAutoCommits=true&rigx=" \
		-D maxid1="$MAXID1" -D loaders="$LOADERS" -D requesters="$REQUESTERS" -D requests="$REQUESTS" \
		${DIST_FILE:+-D "data_file=$DIST_FILE"} "$@"
}

# linkbench_schema: enginebench's LinkBench tables, taken from a small enginebench load (the
# corrected variant loads a handful of links), so that the Java client runs on the same DDL;
# --keep, or enginebench drops the tables before they are dumped.
linkbench_schema() {
	fresh_db linkdb0
	ENGINEBENCH_DSN="root@unix($SOCK)/linkdb0" "$ENGINEBENCH" run linkbench --engines innodb --variant corrected \
		--steps load --maxid1 3 --loaders 1 --keep --out "$W/lbschema" >"$OUT/logs/linkbench-schema.log" 2>&1 ||
		die "enginebench could not create the LinkBench tables (log: $OUT/logs/linkbench-schema.log)"
	dump_ddl linkdb0 linktable counttable nodetable >"$OUT/ddl/linkbench.schema.sql"
	sql -e 'DROP DATABASE linkdb0'
}

linkbench_ref() {
	local r=$1 f
	fresh_db linkdb0
	sql linkdb0 <"$OUT/ddl/linkbench.schema.sql"
	local log=$OUT/logs/r$r.java.load.log
	measure "Java LinkBench load" "$log" linkbench_java -l
	parse f lb-load "$log"
	record "$r" lb-load java "${f[0]}" "${f[1]}" "$M_CLIENT_NS" "$M_SERVER_NS"
	log=$OUT/logs/r$r.java.request.log
	status_counters "$W/rq0"
	: >"$log"
	if ((PROFILE > 0)); then
		follow "$log" "*Requester thread #0 started*" profile "r$r.ref.linkbench-requests" &
		WATCHER_PID=$!
	fi
	measure "Java LinkBench requests" "$log" linkbench_java -r
	if [[ -n $WATCHER_PID ]]; then
		kill "$WATCHER_PID" 2>/dev/null || true
		wait "$WATCHER_PID" 2>/dev/null || true
		WATCHER_PID=""
	fi
	status_counters "$W/rq1"
	statements "r$r.ref.linkbench-requests" "$W/rq0" "$W/rq1"
	parse f lb-req "$log"
	record "$r" linkbench java "${f[0]}" "${f[1]}" "$M_CLIENT_NS" "$M_SERVER_NS"
	dump_ddl linkdb0 linktable counttable nodetable >"$OUT/ddl/linkbench.java.r$r.sql"
}

# linkbench_eb ROUND: load and one request interval that ends when every requester has made
# its requests (the interval's length only bounds it), with the fork's default profile; --keep
# for the dump, as insert_eb.
linkbench_eb() {
	local r=$1 line
	fresh_db linkdb0
	local dir=$OUT/eb/r$r.linkbench
	ENGINEBENCH_DSN="root@unix($SOCK)/linkdb0" EB_REQUESTS="r$r.eb.linkbench-requests" measure_eb "enginebench linkbench" \
		"$OUT/logs/r$r.enginebench.linkbench.log" "$OUT/logs/r$r.enginebench.linkbench.samples" \
		"$ENGINEBENCH" run linkbench --engines innodb --profile fb2017 --maxid1 "$MAXID1" --loaders "$LOADERS" \
		--requesters "$REQUESTERS" --requests "$REQUESTS" --intervals 1 --interval-seconds 100000 \
		${DIST_FILE:+--distribution-file "$DIST_FILE"} \
		--db-pid "$SERVER_PID" --data-dir "$DATADIR" --keep --out "$dir"
	local out work
	out=$("$REF_PYTHON" "$PARSE" eb "$dir/run.json" "$OUT/logs/r$r.enginebench.linkbench.samples" load run)
	while read -r -a line; do
		work=linkbench
		[[ ${line[0]} == load ]] && work=lb-load
		record "$r" "$work" enginebench "${line[1]}" "${line[2]}" "${line[3]}" "${line[4]}" "${line[5]}"
	done <<<"$out"
	dump_ddl linkdb0 linktable counttable nodetable >"$OUT/ddl/linkbench.enginebench.r$r.sql"
}

# ---- checks, setup, main ---------------------------------------------------------------------

preflight() {
	((EUID == 0)) || die "run as root: the rig creates cgroups and starts mariadbd as the mysql user"
	cg_detect
	[[ -x $MARIADBD ]] || die "mariadbd not found at $MARIADBD (apt-get install mariadb-server)"
	command -v "$MARIADB" >/dev/null || die "the mariadb client is not installed (apt-get install mariadb-client)"
	command -v "$MARIADB_DUMP" >/dev/null || die "mariadb-dump is not installed (apt-get install mariadb-client)"
	command -v setpriv >/dev/null || die "setpriv is not installed (apt-get install util-linux)"
	if ((PROFILE > 0)); then command -v perf >/dev/null || die "--server-profile: perf is not installed (apt-get install linux-perf)"; fi
	id mysql >/dev/null 2>&1 || die "there is no mysql user (apt-get install mariadb-server)"
	[[ -x $ENGINEBENCH ]] || die "no enginebench binary at $ENGINEBENCH (make build, or bench/refclients.sh setup)"
	"$REF_PYTHON" -c 'import sys; assert sys.version_info >= (3, 8)' 2>/dev/null || die "$REF_PYTHON is not Python 3.8 or later"
	choose_refs
	local why
	if insert_work && has_ref iibench.py; then
		why=$(missing_ref iibench.py) || die "$why"
	fi
	if has_work linkbench && has_ref java; then
		why=$(missing_ref java) || die "$why"
	fi
	if [[ -z $OUT ]]; then OUT=$ROOT/results/refclients-$(date +%Y%m%d-%H%M%S); fi
	[[ ! -e $OUT ]] || die "--out $OUT exists"
}

# missing_ref iibench.py|java: fails, saying what is missing, when the reference client
# cannot run here.
missing_ref() {
	case $1 in
	iibench.py)
		[[ -r $REF_IIBENCH ]] || { echo "iibench.py not found at $REF_IIBENCH (set REF_IIBENCH)"; return 1; }
		"$REF_PYTHON" -c 'import MySQLdb' 2>/dev/null ||
			{ echo "$REF_PYTHON has no MySQLdb (apt-get install python3-mysqldb)"; return 1; }
		;;
	java)
		[[ -r $REF_LINKBENCH/target/FacebookLinkBench.jar && -r $REF_LINKBENCH/config/LinkConfigMysql.properties ]] ||
			{ echo "no built Java LinkBench at $REF_LINKBENCH (bench/refclients.sh setup, or set REF_LINKBENCH)"; return 1; }
		compgen -G "$REF_JARS/junixsocket-mysql-*.jar" >/dev/null ||
			{ echo "no junixsocket jars in $REF_JARS (bench/refclients.sh setup)"; return 1; }
		command -v java >/dev/null || { echo "java is not installed (apt-get install default-jre)"; return 1; }
		;;
	esac
}

# choose_refs: --refs auto becomes the reference clients of the chosen work that can run here
# (saying why each other one does not), none the empty list.
choose_refs() {
	if [[ $REFS == none ]]; then REFS=""; return; fi
	[[ $REFS == auto ]] || return 0
	REFS=""
	local r why
	for r in iibench.py java; do
		if [[ $r == iibench.py ]] && ! insert_work; then continue; fi
		if [[ $r == java ]] && ! has_work linkbench; then continue; fi
		if why=$(missing_ref "$r"); then REFS+=${REFS:+,}$r; else say "--refs auto: no $r: $why"; fi
	done
}

setup() {
	((EUID == 0)) || die "run as root"
	if [[ ! -r $REF_LINKBENCH/pom.xml ]]; then
		[[ -r $REF_LINKBENCH_SRC/pom.xml ]] || die "no LinkBench checkout at $REF_LINKBENCH_SRC (set REF_LINKBENCH_SRC)"
		say "copying $REF_LINKBENCH_SRC to $REF_LINKBENCH"
		mkdir -p "$(dirname "$REF_LINKBENCH")"
		cp -r "$REF_LINKBENCH_SRC" "$REF_LINKBENCH"
	fi
	say "building the Java LinkBench in $REF_LINKBENCH (mvn package, tests skipped)"
	(cd "$REF_LINKBENCH" && mvn -B -q -Dstyle.color=never -DskipTests package)
	say "fetching junixsocket $JUNIXSOCKET_VERSION (unix socket factory for Connector/J) into $REF_JARS"
	mkdir -p "$REF_JARS"
	local a
	for a in junixsocket-common junixsocket-native-common junixsocket-mysql; do
		(cd "$REF_LINKBENCH" && mvn -B -q -Dstyle.color=never dependency:copy \
			-Dartifact="com.kohlschutter.junixsocket:$a:$JUNIXSOCKET_VERSION" -DoutputDirectory="$REF_JARS")
	done
	if [[ ! -x $ENGINEBENCH ]]; then
		say "building enginebench into $ENGINEBENCH"
		(cd "$ROOT" && go build -o "$ENGINEBENCH" ./cmd/enginebench)
	fi
	"$REF_PYTHON" -c 'import MySQLdb' 2>/dev/null || echo "note: $REF_PYTHON has no MySQLdb: apt-get install python3-mysqldb"
	say "setup done"
}

cleanup() {
	local status=$?
	trap - EXIT INT TERM
	if [[ -n $SAMPLER_PID ]]; then kill "$SAMPLER_PID" 2>/dev/null || true; fi
	if [[ -n $WATCHER_PID ]]; then kill "$WATCHER_PID" 2>/dev/null || true; fi
	if [[ -n $W && -s $W/perf.pids ]]; then
		local p
		while read -r p; do kill -INT "$p" 2>/dev/null || true; done <"$W/perf.pids"
	fi
	if [[ -n ${CG_BASE:-} && -d $CG_BASE ]]; then
		local cg
		for cg in "$CG_BASE"/c*; do [[ -d $cg ]] && cg_kill "$cg"; done
		stop_server
		rmdir "$CG_BASE" 2>/dev/null || echo "refclients: could not remove cgroup $CG_BASE" >&2
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
	if [[ ${1:-} == check ]]; then
		shift
		parse_flags "$@"
		preflight
		say "ready: work $WORK; reference clients: ${REFS:-none}; results would go to $OUT"
		return
	fi
	[[ ${1:-} == run ]] && shift
	parse_flags "$@"
	preflight
	mkdir -p "$OUT/logs" "$OUT/ddl" "$OUT/eb"
	if ((PROFILE > 0)); then mkdir -p "$OUT/perf"; fi
	printf 'round\twork\tclient\tops\tseconds\tclient_ns\tserver_ns\trunjson_client_cpu_s\n' >"$OUT/results.tsv"
	W=$(mktemp -d "${TMPDIR:-/tmp}/refclients.XXXXXX")
	chmod 0711 "$W" # mysql reaches its data directory and socket directory (both 0700) through it
	mkdir -p "$W/cwd"
	mkfifo "$W/tick"
	sweep_cgroups
	CG_BASE=$CG_ROOT/refclients-$$
	trap cleanup EXIT
	trap 'echo "refclients: interrupted" >&2; exit 130' INT TERM
	mkdir "$CG_BASE"
	say "cgroup accounting: $CG_KIND at $CG_BASE; reference clients: ${REFS:-none}; results in $OUT"
	start_server
	has_work linkbench && linkbench_schema
	local r c
	for ((r = 1; r <= ROUNDS; r++)); do
		local order=(ref eb)
		((r % 2 == 0)) && order=(eb ref)
		for c in "${order[@]}"; do
			if insert_work && { [[ $c == eb ]] || has_ref iibench.py; }; then
				sleep "$SETTLE"
				say "round $r: Insert Benchmark, $([[ $c == ref ]] && echo iibench.py || echo enginebench)"
				status_counters "$W/st0"
				"insert_$c" "$r"
				status_counters "$W/st1"
				statements "r$r.$c.insert" "$W/st0" "$W/st1"
			fi
		done
		for c in "${order[@]}"; do
			if has_work linkbench && { [[ $c == eb ]] || has_ref java; }; then
				sleep "$SETTLE"
				say "round $r: LinkBench, $([[ $c == ref ]] && echo Java || echo enginebench)"
				status_counters "$W/st0"
				digests_reset
				"linkbench_$c" "$r"
				digests "r$r.$c.linkbench"
				status_counters "$W/st1"
				statements "r$r.$c.linkbench" "$W/st0" "$W/st1"
			fi
		done
	done
	check_ddl
	profile_reports
	echo
	"$REF_PYTHON" "$PARSE" summary "$OUT/results.tsv" | tee "$OUT/summary.txt"
	if has_work linkbench; then
		echo
		"$REF_PYTHON" "$PARSE" per-request "$OUT/results.tsv" "$OUT/logs" | tee -a "$OUT/summary.txt"
		if ((PROFILE > 0)); then
			echo
			"$REF_PYTHON" "$PARSE" sched "$OUT/results.tsv" "$OUT/perf" "$PROFILE" | tee -a "$OUT/summary.txt"
		fi
	fi
	echo
	echo "results: $OUT (results.tsv, summary.txt, logs/, eb/ run directories, ddl/)"
}

# check_ddl: the reference's tables must be ours: every dump of a workload must be the same.
check_ddl() {
	local kind first f ok
	for kind in insert linkbench; do
		first=""
		ok=1
		for f in "$OUT"/ddl/"$kind".*.sql; do
			[[ -e $f ]] || continue
			if [[ -z $first ]]; then first=$f; continue; fi
			if ! cmp -s "$first" "$f"; then
				ok=0
				echo "WARNING: the $kind tables differ between $(basename "$first") and $(basename "$f"):"
				diff "$first" "$f" | head -20 || true
			fi
		done
		[[ -n $first && $ok == 1 ]] && say "$kind: every client ran on the same table definitions ($(basename "$first"))"
	done
	return 0
}

main "$@"
