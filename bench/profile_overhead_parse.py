#!/usr/bin/env python3
"""Summarises bench/profile-overhead.sh's runs: for each engine, step and kind of profiling,
the step's rate and the DBMS's CPU per operation (medians over the rounds), and each relative
to the runs without profiling. Usage: profile_overhead_parse.py OUT_DIR"""
import json
import os
import statistics
import sys

STEPS = ("l.i1", "qr100")
KINDS = ("off", "cpu99", "cpu499", "counters")


def main(out):
    figures = {}  # (engine, step, kind) -> ([rates], [cpu per op])
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name, "run.json")
        if not os.path.isfile(path):
            continue
        kind = name.split("-", 1)[1]
        with open(path) as f:
            run = json.load(f)
        for c in run["configs"]:
            for s in c["steps"]:
                if s["name"] not in STEPS:
                    continue
                op = s["ops"].get(s.get("primary_op", ""), {})
                cpu = (s.get("efficiency") or {}).get("db_cpupq")
                rates, cpus = figures.setdefault((c["name"], s["name"], kind), ([], []))
                rates.append(op.get("per_sec", 0))
                if cpu is not None:
                    cpus.append(cpu)
    if not figures:
        sys.exit("profile_overhead_parse.py: no run.json under " + out)
    print("| engine | step | profiling | rounds | rate/s | vs off | DBMS CPU us/op | vs off |")
    print("|---|---|---|---|---|---|---|---|")
    for engine in sorted({k[0] for k in figures}):
        for step in STEPS:
            base = figures.get((engine, step, "off"))
            for kind in KINDS:
                fig = figures.get((engine, step, kind))
                if not fig:
                    continue
                rate = statistics.median(fig[0])
                cpu = statistics.median(fig[1]) if fig[1] else None
                rate_vs = ratio(rate, base and statistics.median(base[0]))
                cpu_vs = ratio(cpu, base and base[1] and statistics.median(base[1]))
                print(f"| {engine} | {step} | {kind} | {len(fig[0])} | {rate:,.0f} | {rate_vs} | "
                      f"{'-' if cpu is None else f'{cpu:.1f}'} | {cpu_vs} |")


def ratio(a, b):
    if a is None or not b:
        return "-"
    return f"{a / b:.3f}x"


if __name__ == "__main__":
    main(sys.argv[1])
