#!/usr/bin/python3
"""Parsing, the summary table and the command summaries of bench/refclients-mongo.sh (issue 32).

Subcommands (each prints one tab-separated line, or a table):
  ib-java LOG                 documents seconds, from jmongoiibench's last report line
  lbx-load LOG                links seconds, from LinkbenchX's LOAD PHASE COMPLETED line
  lbx-req LOG                 requests seconds, from REQUEST PHASE COMPLETED and the log's timestamps
  eb RUN_JSON SAMPLES STEP... per STEP: step ops seconds client_ns server_ns shim_ns runjson_client_cpu_s,
                              the cgroup figures interpolated from SAMPLES over the step's window
  summary RESULTS_TSV         the per-run table and the medians
  commands FERRETDB_LOG       the commands in a FerretDB debug log, by shape, with counts
"""

import collections
import datetime
import json
import re
import statistics
import sys


def fail(msg):
    print("refclients_mongo_parse: " + msg, file=sys.stderr)
    sys.exit(1)


def _read(path):
    return open(path, encoding="utf-8", errors="replace").read()


# jmongoiibench.java:744: "N inserts : S seconds : cum ips=X : ..." (the numbers with commas).
_IB_LINE = re.compile(r"\| ([\d,]+) inserts : [\d,]+ seconds : cum ips=([\d,.]+) ")


def ib_java(log):
    last = None
    for m in _IB_LINE.finditer(_read(log)):
        last = m
    if last is None or "Done!" not in _read(log):
        fail(f"{log}: no final report line (did jmongoiibench fail?)")
    docs = int(last.group(1).replace(",", ""))
    ips = float(last.group(2).replace(",", ""))
    if ips <= 0:
        fail(f"{log}: a cumulative rate of {ips}")
    # cum ips is documents / the milliseconds since the reporter's start (:632-637).
    print(f"{docs}\t{docs / ips:.3f}")


def lbx_load(log):
    m = re.search(r"LOAD PHASE COMPLETED\..*? Loaded (\d+) links .*? Took ([0-9.]+) seconds", _read(log))
    if not m:
        fail(f"{log}: no LOAD PHASE COMPLETED line (did the load fail?)")
    print(f"{m.group(1)}\t{m.group(2)}")


# log4j's EnhancedPatternLayout "%p %d [%t]: %m" (ConfigUtil.java:88): "INFO 2026-12-02 01:18:41,168 [...]".
_JTS = re.compile(r"^\w+ (\d{4}-\d\d-\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) ")


def _jtime(line):
    m = _JTS.match(line)
    if not m:
        return None
    day = datetime.date.fromisoformat(m.group(1)).toordinal()
    return day * 86400 + int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4)) + int(m.group(5)) / 1000


def lbx_req(log):
    start = end = requests = None
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
        if len(f) == 4:
            samples.append((float(f[0]), int(f[1]), int(f[2]), int(f[3])))
    if len(samples) < 2:
        fail(f"{sample_file}: fewer than two cgroup samples")
    by_name = {s["name"]: s for s in cfg["steps"]}
    for want in steps:
        # "run" is also every request interval of LinkBench (run.1 .. run.N) taken together.
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
        d = [_interp(samples, t1, c) - _interp(samples, t0, c) for c in (1, 2, 3)]
        print(f"{want}\t{int(ops)}\t{secs:.3f}\t{int(d[0])}\t{int(d[1])}\t{int(d[2])}\t{cpu_json:.6f}")


def _num(x, digits=1):
    return "-" if x is None else f"{x:,.{digits}f}"


_COLS = ["round", "work", "client", "ops", "seconds", "client_ns", "server_ns", "shim_ns", "json_cpu_s"]


def summary(path):
    rows = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "round":
            continue
        r = dict(zip(_COLS, f))
        ops, secs = int(r["ops"]), float(r["seconds"])
        r["rate"] = ops / secs if secs > 0 else None
        r["cpu"] = int(r["client_ns"]) / 1000 / ops if ops else None
        r["srv"] = int(r["server_ns"]) / 1000 / ops if ops else None
        r["shim"] = int(r["shim_ns"]) / 1000 / ops if ops else None
        r["json"] = float(r["json_cpu_s"]) * 1e6 / ops if r["json_cpu_s"] not in ("", "-", "0") and ops else None
        rows.append(r)
    hdr = ["round", "work", "client", "ops", "seconds", "rate/s", "client us/op", "server us/op", "shim us/op",
           "run.json us/op"]
    out = [hdr]
    for r in rows:
        out.append([r["round"], r["work"], r["client"], f"{int(r['ops']):,}", f"{float(r['seconds']):.1f}",
                    _num(r["rate"]), _num(r["cpu"], 2), _num(r["srv"], 2), _num(r["shim"], 2), _num(r["json"], 2)])
    _table(out)
    print()
    med = [["work", "client", "runs", "median rate/s", "median client us/op", "median server us/op",
            "client us/op vs ref", "rate vs ref"]]
    for w in dict.fromkeys(r["work"] for r in rows):
        ref = _medians([r for r in rows if r["work"] == w and r["client"] != "enginebench"])
        for c in dict.fromkeys(r["client"] for r in rows if r["work"] == w):
            m = _medians([r for r in rows if r["work"] == w and r["client"] == c])
            vs_cpu = vs_rate = "-"
            if c == "enginebench" and ref["cpu"] and m["cpu"] is not None:
                vs_cpu = f"{m['cpu'] / ref['cpu']:.2f}x"
            if c == "enginebench" and ref["rate"] and m["rate"] is not None:
                vs_rate = f"{m['rate'] / ref['rate']:.2f}x"
            med.append([w, c, str(m["n"]), _num(m["rate"]), _num(m["cpu"], 2), _num(m["srv"], 2), vs_cpu, vs_rate])
    _table(med)


def _medians(rs):
    def med(k):
        v = [r[k] for r in rs if r[k] is not None]
        return statistics.median(v) if v else None
    return {"n": len(rs), "rate": med("rate"), "cpu": med("cpu"), "srv": med("srv")}


def _table(rows):
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w[i]) if i < 3 else c.rjust(w[i]) for i, c in enumerate(r)).rstrip())


# ---- the commands of a FerretDB debug log ----------------------------------------------------
#
# FerretDB 1.24 at --log-level=debug logs every request (clientconn/conn.go:262-263): a
# "Request header" line with the opcode, then a "Request message" line whose msg is the
# message in FerretDB's own notation (JSON-like, with ObjectID(..), int64(..), Binary(..) and
# trailing commas). A command's shape keeps its keys and the types of its values and replaces
# the values by ?; the keys every command carries ($db, lsid, the session's txnNumber, $clusterTime)
# are left out. An OP_MSG's document sequence (kind 1: documents, updates, deletes) is shown
# as its identifier and the number of its documents, with the first document's shape.

_MSG = re.compile(r'msg="((?:[^"\\]|\\.)*)"')
_CONN = re.compile(r'name="// ([0-9.:]+) -> ')
_SKIP_KEYS = ("$db", "lsid", "$clusterTime", "txnNumber", "$readPreference")


def _unquote(s):
    try:
        return json.loads('"' + re.sub(r"\\x([0-9a-fA-F]{2})", r"\\u00\1", s) + '"')
    except ValueError:
        return s


def _split_top(text):
    """The top-level items of a {...} or [...] body (without its brackets), split on commas."""
    items, depth, cur, i, instr = [], 0, [], 0, False
    while i < len(text):
        ch = text[i]
        if instr:
            cur.append(ch)
            if ch == "\\":
                cur.append(text[i + 1])
                i += 1
            elif ch == '"':
                instr = False
        elif ch == '"':
            instr = True
            cur.append(ch)
        elif ch in "{[(":
            depth += 1
            cur.append(ch)
        elif ch in "}])":
            depth -= 1
            cur.append(ch)
        elif ch == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    last = "".join(cur).strip()
    if last:
        items.append(last)
    return items


def _key_value(item):
    m = re.match(r'"((?:[^"\\]|\\.)*)"\s*:\s*(.*)$', item, re.S)
    return (m.group(1), m.group(2)) if m else (None, item)


# Documents whose values are kept as they are (a sort's direction, an index's key, a
# projection's 0 or 1, a write or read concern), and scalar options shown with their value.
_LITERAL_DOCS = ("sort", "key", "projection", "hint", "writeConcern", "readConcern")
_LITERAL_KEYS = ("limit", "skip", "batchSize", "singleBatch", "w", "j", "level", "ordered", "upsert", "multi")


def _scalar(v):
    if v.startswith('"'):
        return "str"
    m = re.match(r"(\w+)\(", v)
    if m:
        return m.group(1)
    if v in ("true", "false"):
        return v  # booleans are options (ordered, upsert, multi): their value matters
    if re.fullmatch(r"-?\d+", v):
        return "int32"
    if re.fullmatch(r"-?[\d.]+(e[-+]?\d+)?|NaN|[-+]?Inf", v):
        return "double"
    return v


def _literal(v):
    """A scalar with its value: int32(10000), int64(10000), "local", true."""
    t = _scalar(v)
    if t in ("true", "false"):
        return t
    if t == "int32" or t == "double":
        return f"{t}({v})"
    return v


def _shape(value, literal=False):
    """A value's shape: documents and arrays kept, scalars as their type (or as they are)."""
    v = value.strip()
    if v.startswith("{"):
        parts = []
        for it in _split_top(v[1:-1]):
            k, val = _key_value(it)
            if k in _SKIP_KEYS:
                continue
            if literal or (k in _LITERAL_KEYS and not val.strip().startswith(("{", "["))):
                parts.append(f"{k}: {_shape(val, True) if val.strip().startswith('{') else _literal(val.strip())}")
            else:
                parts.append(f"{k}: {_shape(val, k in _LITERAL_DOCS)}")
        return "{" + ", ".join(parts) + "}"
    if v.startswith("["):
        items = _split_top(v[1:-1])
        if not items:
            return "[]"
        shapes = [_shape(x, literal) for x in items]
        if len(set(shapes)) == 1 and len(shapes) > 1:
            return f"[{shapes[0]} x{len(shapes)}]"
        return "[" + ", ".join(shapes) + "]"
    return _literal(v) if literal else _scalar(v)


def _command(msg):
    """(opcode-ish kind, shape) of one request message in FerretDB's notation."""
    text = msg.split("\n", 1)[1] if msg.startswith("Request message:") else msg
    top = dict(_key_value(x) for x in _split_top(text.strip()[1:-1]))
    if "Sections" in top:
        out = []
        for sec in _split_top(top["Sections"].strip()[1:-1]):
            s = dict(_key_value(x) for x in _split_top(sec.strip()[1:-1]))
            if s.get("Kind") == "0":
                out.append(_shape(s["Document"]))
            else:
                docs = _split_top(s.get("Documents", "[]").strip()[1:-1])
                first = _shape(docs[0]) if docs else ""
                out.append(f'{_unquote(s.get("Identifier", "?")[1:-1])}: {len(docs)} x {first}')
        return "OP_MSG", " + ".join(out)
    if "Query" in top:
        return "OP_QUERY", f'{top.get("FullCollectionName", "?")} {_shape(top["Query"])}'
    return "?", text[:200]


def commands(log):
    counts = collections.Counter()
    conns = set()
    for line in open(log, encoding="utf-8", errors="replace"):
        if "Request message:" not in line:
            continue
        m = _MSG.search(line)
        if not m:
            continue
        c = _CONN.search(line)
        if c:
            conns.add(c.group(1))
        kind, shape = _command(_unquote(m.group(1)))
        # A command's batch sizes vary (the last batch, a list of id2s): the shape says
        # "x N" for N documents; counting by shape keeps them apart.
        counts[(kind, shape)] += 1
    total = sum(counts.values())
    print(f"{total} requests on {len(conns)} connections")
    for (kind, shape), n in counts.most_common():
        print(f"{n:8d}  {kind:8s} {shape}")


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "ib-java":
        ib_java(args[0])
    elif cmd == "lbx-load":
        lbx_load(args[0])
    elif cmd == "lbx-req":
        lbx_req(args[0])
    elif cmd == "eb" and len(args) >= 3:
        eb(args[0], args[1], args[2:])
    elif cmd == "summary":
        summary(args[0])
    elif cmd == "commands":
        commands(args[0])
    else:
        fail(f"unknown subcommand or arguments: {' '.join(argv[1:])}")


if __name__ == "__main__":
    main(sys.argv)
