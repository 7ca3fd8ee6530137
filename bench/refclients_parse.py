#!/usr/bin/python3
"""Parsing and the summary table of bench/refclients.sh (issue 18).

Subcommands (each prints one tab-separated line, or the table):
  iibench LOG                 rows queries seconds, from iibench.py's Totals and Query thread lines
  lb-load LOG                 links seconds, from the Java LinkBench's LOAD PHASE COMPLETED line
  lb-req LOG                  requests seconds, from REQUEST PHASE COMPLETED and the log's timestamps
  eb RUN_JSON SAMPLES STEP... per STEP: step ops seconds client_ns server_ns runjson_client_cpu_s,
                              the cgroup figures interpolated from SAMPLES over the step's window
  summary RESULTS_TSV         the per-run table and the medians
  per-request RESULTS_TSV LOGS the server's counters (and CPU) per LinkBench request of each client run
  sched RESULTS_TSV PERF S    the perf stat counters of --server-profile S per LinkBench request
"""

import datetime
import json
import os
import re
import statistics
import sys


def fail(msg):
    print("refclients_parse: " + msg, file=sys.stderr)
    sys.exit(1)


def iibench(log):
    text = open(log, encoding="utf-8", errors="replace").read()
    m = re.search(r"^Totals: ([0-9.]+) secs, [0-9.]+ rows/sec, (\d+) rows", text, re.M)
    if not m:
        fail(f"{log}: no Totals line (did iibench.py fail?)")
    q = re.search(r"^Query thread: (\d+) queries", text, re.M)
    print(f"{m.group(2)}\t{q.group(1) if q else 0}\t{m.group(1)}")


def lb_load(log):
    text = open(log, encoding="utf-8", errors="replace").read()
    m = re.search(r"LOAD PHASE COMPLETED\..*?, (\d+) links .*? ([0-9.]+) seconds", text)
    if not m:
        fail(f"{log}: no LOAD PHASE COMPLETED line (did the load fail?)")
    print(f"{m.group(1)}\t{m.group(2)}")


# The Java logger prints milliseconds as a decimal fraction without trailing zeros: 12:00:01.1
# is 100 ms.
_JTS = re.compile(r"^\w+ (\d{4}-\d\d-\d\d) (\d\d):(\d\d):(\d\d(?:\.\d+)?) ")


def _jtime(line):
    m = _JTS.match(line)
    if not m:
        return None
    day = datetime.date.fromisoformat(m.group(1)).toordinal()
    return day * 86400 + int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4))


def lb_req(log):
    start = end = None
    requests = None
    for line in open(log, encoding="utf-8", errors="replace"):
        if start is None and re.search(r"Requester thread #\d+ started", line):
            start = _jtime(line)
        m = re.search(r"REQUEST PHASE COMPLETED\. (\d+) requests done", line)
        if m:
            requests, end = int(m.group(1)), _jtime(line)
    if requests is None or start is None or end is None:
        fail(f"{log}: no request phase start or REQUEST PHASE COMPLETED line (did it fail?)")
    print(f"{requests}\t{end - start:.3f}")


def _epoch(ts):
    # RFC 3339 with nanoseconds: keep microseconds for fromisoformat.
    m = re.match(r"(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$", ts)
    if not m:
        fail(f"bad time {ts!r} in run.json")
    frac = (m.group(2) or ".0")[:7]
    zone = "+00:00" if m.group(3) == "Z" else m.group(3)
    return datetime.datetime.fromisoformat(m.group(1) + frac + zone).timestamp()


def _interp(samples, t, col):
    if t <= samples[0][0]:
        return samples[0][col]
    for a, b in zip(samples, samples[1:]):
        if a[0] <= t <= b[0]:
            if b[0] == a[0]:
                return b[col]
            return a[col] + (b[col] - a[col]) * (t - a[0]) / (b[0] - a[0])
    return samples[-1][col]


def eb(run_json, sample_file, steps):
    run = json.load(open(run_json))
    if len(run.get("configs", [])) != 1:
        fail(f"{run_json}: expected one configuration")
    cfg = run["configs"][0]
    if cfg.get("status") != "ok":
        fail(f"{run_json}: configuration status {cfg.get('status')}: {cfg.get('error', '')}")
    samples = []
    for line in open(sample_file):
        f = line.split()
        if len(f) == 3:
            samples.append((float(f[0]), int(f[1]), int(f[2])))
    if len(samples) < 2:
        fail(f"{sample_file}: fewer than two cgroup samples")
    by_name = {s["name"]: s for s in cfg["steps"]}
    for want in steps:
        # "run" is every request interval of LinkBench (run.1 .. run.N) taken together.
        group = [s for n, s in by_name.items() if n == want or (want == "run" and re.fullmatch(r"run\.\d+", n))]
        if not group:
            fail(f"{run_json}: no step {want}")
        ops = secs = cpu_json = 0.0
        t0, t1 = float("inf"), 0.0
        for s in group:
            if s.get("status") != "ok":
                fail(f"{run_json}: step {s['name']} status {s.get('status')}: {s.get('error', '')}")
            ops += s["ops"][s["primary_op"]]["units"]
            secs += s["seconds"]
            cpu_json += s.get("usage", {}).get("client_cpu_s", float("nan"))
            start = _epoch(s["started_at"])
            t0, t1 = min(t0, start), max(t1, start + s["seconds"])
        client = _interp(samples, t1, 1) - _interp(samples, t0, 1)
        server = _interp(samples, t1, 2) - _interp(samples, t0, 2)
        print(f"{want}\t{int(ops)}\t{secs:.3f}\t{int(client)}\t{int(server)}\t{cpu_json:.6f}")



def _num(x, digits=1):
    return "-" if x is None else f"{x:,.{digits}f}"


def summary(path):
    rows = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "round":
            continue
        r = dict(zip(["round", "work", "client", "ops", "seconds", "client_ns", "server_ns", "json_cpu_s"], f))
        ops, secs = int(r["ops"]), float(r["seconds"])
        r["rate"] = ops / secs if secs > 0 else None
        r["cpu"] = int(r["client_ns"]) / 1000 / ops if ops else None
        r["srv"] = int(r["server_ns"]) / 1000 / ops if ops else None
        r["json"] = float(r["json_cpu_s"]) * 1e6 / ops if r["json_cpu_s"] not in ("", "-") and ops else None
        rows.append(r)
    hdr = ["round", "work", "client", "ops", "seconds", "rate/s", "client us/op", "server us/op", "run.json us/op"]
    out = [hdr]
    for r in rows:
        out.append([r["round"], r["work"], r["client"], f"{int(r['ops']):,}", f"{float(r['seconds']):.1f}",
                    _num(r["rate"]), _num(r["cpu"], 2), _num(r["srv"], 2), _num(r["json"], 2)])
    _table(out)
    print()
    med = [["work", "client", "runs", "median rate/s", "median client us/op", "median server us/op",
            "client us/op vs ref", "rate vs ref"]]
    works = list(dict.fromkeys(r["work"] for r in rows))
    for w in works:
        ref = _medians([r for r in rows if r["work"] == w and r["client"] != "enginebench"])
        for c in list(dict.fromkeys(r["client"] for r in rows if r["work"] == w)):
            m = _medians([r for r in rows if r["work"] == w and r["client"] == c])
            vs_cpu = vs_rate = "-"
            if c == "enginebench" and ref["cpu"] and m["cpu"] is not None:
                vs_cpu = f"{m['cpu'] / ref['cpu']:.2f}x"
            if c == "enginebench" and ref["rate"] and m["rate"] is not None:
                vs_rate = f"{m['rate'] / ref['rate']:.2f}x"
            med.append([w, c, str(m["n"]), _num(m["rate"]), _num(m["cpu"], 2), _num(m["srv"], 2), vs_cpu, vs_rate])
    _table(med)


def per_request(path, logs):
    """The server's counters over each LinkBench request phase (logs/r<round>.<ref|eb>.linkbench-requests.statements)
    per request: one column per client run, then enginebench's median over the reference's."""
    runs = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "round" or f[1] != "linkbench":
            continue
        side = "eb" if f[2] == "enginebench" else "ref"
        name = os.path.join(logs, f"r{f[0]}.{side}.linkbench-requests.statements")
        if not os.path.exists(name) or int(f[3]) == 0:
            continue
        counts = {}
        for c in open(name):
            k, v = c.split()
            counts[k] = int(v)
        counts["server CPU us"] = int(f[6]) / 1000
        runs.append((f"r{f[0]} {f[2]}", side, int(f[3]), counts))
    if not runs:
        return
    print("the server's counters per LinkBench request (each client's request phase; enginebench's also hold the reads")
    print("of its verification after the requests: Handler_read_next, Innodb_buffer_pool_read_requests)")
    keys = [k for k in runs[0][3] if any(r[3].get(k) for r in runs)]
    out = [["counter"] + [r[0] for r in runs] + ["eb vs ref"]]
    for k in keys:
        row = [k] + [_num(r[3].get(k, 0) / r[2], 3) for r in runs]
        ref = [r[3].get(k, 0) / r[2] for r in runs if r[1] == "ref"]
        eb = [r[3].get(k, 0) / r[2] for r in runs if r[1] == "eb"]
        vs = "-"
        if ref and eb and statistics.median(ref) > 0:
            vs = f"{statistics.median(eb) / statistics.median(ref):.2f}x"
        out.append(row + [vs])
    _table(out, left=1)


def sched(path, perf_dir, seconds):
    """Per LinkBench request, from the perf stat files of --server-profile (S seconds from the start
    of each client's requests): the machine's CPU time, context switches, migrations and page faults,
    divided by the requests the client's average rate makes in S seconds."""
    seconds = float(seconds)
    runs = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "round" or f[1] != "linkbench" or float(f[4]) <= 0:
            continue
        side = "eb" if f[2] == "enginebench" else "ref"
        reqs = int(f[3]) / float(f[4]) * seconds
        vals = {}
        for who in ("machine",):
            name = os.path.join(perf_dir, f"r{f[0]}.{side}.linkbench-requests.{who}.stat")
            if not os.path.exists(name):
                continue
            for c in open(name):
                c = c.strip().split(",")
                if len(c) < 3 or c[0].startswith("#") or not re.match(r"^[0-9.]+$", c[0]):
                    continue
                v = float(c[0]) * (1000 if c[2] == "task-clock" else 1)  # task-clock: ms -> us
                vals[f"{who} {c[2]}"] = v / reqs
        if vals:
            runs.append((f"r{f[0]} {f[2]}", side, vals))
    if not runs:
        return
    print(f"per LinkBench request over {seconds:g} s from the start of each client's requests (perf stat; "
          "task-clock in us; the requests: the client's average rate x the seconds)")
    keys = list(dict.fromkeys(k for r in runs for k in r[2]))
    out = [["counter"] + [r[0] for r in runs] + ["eb vs ref"]]
    for k in keys:
        ref = [r[2][k] for r in runs if r[1] == "ref" and k in r[2]]
        eb = [r[2][k] for r in runs if r[1] == "eb" and k in r[2]]
        vs = "-"
        if ref and eb and statistics.median(ref) > 0:
            vs = f"{statistics.median(eb) / statistics.median(ref):.2f}x"
        out.append([k] + [_num(r[2].get(k), 3) for r in runs] + [vs])
    _table(out, left=1)


def _medians(rs):
    def med(k):
        v = [r[k] for r in rs if r[k] is not None]
        return statistics.median(v) if v else None
    return {"n": len(rs), "rate": med("rate"), "cpu": med("cpu"), "srv": med("srv")}


def _table(rows, left=3):
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w[i]) if i < left else c.rjust(w[i]) for i, c in enumerate(r)).rstrip())


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "iibench":
        iibench(args[0])
    elif cmd == "lb-load":
        lb_load(args[0])
    elif cmd == "lb-req":
        lb_req(args[0])
    elif cmd == "eb" and len(args) >= 3:
        eb(args[0], args[1], args[2:])
    elif cmd == "summary":
        summary(args[0])
    elif cmd == "per-request" and len(args) == 2:
        per_request(args[0], args[1])
    elif cmd == "sched" and len(args) == 3:
        sched(args[0], args[1], args[2])
    else:
        fail(f"unknown subcommand or arguments: {' '.join(argv[1:])}")


if __name__ == "__main__":
    main(sys.argv)
