#!/usr/bin/env python3
"""Runs TraceSmith's benchmarks (tests/bench/run.sh calls this; see
docs/benchmarks.md for what each one measures and the results so far).

The box these run on is small and shared, so every comparison alternates
its two sides (A B, B A, A B, ...) and reports the median of the pairwise
ratios, which cancels most of the drift that other load causes.  Instruction
counts come from valgrind --tool=callgrind and do not depend on load.

usage: bench.py --build DIR --tmp DIR [--only blob,dedup,record,stacks]
environment: BENCH_MIB (default 256), BENCH_RUNS (default 5),
             BENCH_RECORDS (default 2000000), BENCH_STACK_RECORDS (default 65536);
             run.sh also reads BENCH_TMP (where the files go)
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time


def log(msg):
    print(msg, flush=True)


def run(cmd, env=None, check=True):
    """Runs cmd (a list); returns (wall seconds, stdout, stderr)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=full_env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    t1 = time.perf_counter()
    if check and p.returncode != 0:
        sys.stderr.write("bench: command failed (exit %d): %s\n%s%s" %
                         (p.returncode, " ".join(cmd), p.stdout, p.stderr))
        sys.exit(1)
    return t1 - t0, p.stdout, p.stderr


def fields(text):
    """'key value key value ...' on the last line -> dict."""
    words = text.strip().splitlines()[-1].split()
    return {words[i]: words[i + 1] for i in range(0, len(words) - 1, 2)}


def alternate(runs, a, b):
    """Calls a() and b() runs times each, alternating which goes first;
    returns the two lists of results."""
    ra, rb = [], []
    for i in range(runs):
        if i % 2 == 0:
            ra.append(a())
            rb.append(b())
        else:
            rb.append(b())
            ra.append(a())
    return ra, rb


def med(xs):
    return statistics.median(xs)


def bench_blob(build, tmp, mib, runs):
    tool = os.path.join(build, "tests/bench/bench_blob")
    lz4 = shutil.which("lz4")
    if not lz4:
        log("blob: SKIPPED: no lz4 command-line tool")
        return
    for kind in ("compressible", "random"):
        src = os.path.join(tmp, kind + ".bin")
        out_sbt = os.path.join(tmp, "out.sbt")
        out_lz4 = os.path.join(tmp, "out.lz4")
        run([tool, "gen", kind, str(mib), src])
        with open(src, "rb") as f:  # into the page cache for both sides
            while f.read(1 << 24):
                pass
        sizes = {}

        def ours():
            if os.path.exists(out_sbt):
                os.unlink(out_sbt)
            wall, out, _ = run([tool, "write", src, out_sbt])
            f = fields(out)
            sizes["sbt"] = int(f["file_bytes"])
            return wall, float(f["seconds"])

        def theirs():
            if os.path.exists(out_lz4):
                os.unlink(out_lz4)
            wall, _, _ = run([lz4, "-1", "-f", "-q", src, out_lz4])
            sizes["lz4"] = os.path.getsize(out_lz4)
            return wall

        ra, rb = alternate(runs, ours, theirs)
        nbytes = mib << 20
        ratios = [t_lz4 / t_ours for (t_ours, _), t_lz4 in zip(ra, rb)]
        ratios_in = [t_lz4 / t_in for (_, t_in), t_lz4 in zip(ra, rb)]
        inproc = [t for _, t in ra]
        log("blob %-12s %d MiB x %d runs: sbt_writer (process wall) median %.0f MiB/s, "
            "in-process put_blob+close %.0f MiB/s; lz4 -1 CLI median %.0f MiB/s"
            % (kind, mib, runs, mib / med([w for w, _ in ra]), mib / med(inproc),
               mib / med(rb)))
        log("blob %-12s ratio sbt/lz4 throughput, put_blob+close in process vs lz4 process: "
            "median of pairs %.3f (min %.3f, max %.3f)  goal >= 0.8: %s"
            % (kind, med(ratios_in), min(ratios_in), max(ratios_in),
               "met" if med(ratios_in) >= 0.8 else "NOT MET"))
        log("blob %-12s ratio sbt/lz4 throughput, both as whole processes (ours also reads "
            "the input into memory first): median of pairs %.3f (min %.3f, max %.3f)  "
            "goal >= 0.8: %s" % (kind, med(ratios), min(ratios), max(ratios),
                                 "met" if med(ratios) >= 0.8 else "NOT MET"))
        log("blob %-12s output: sbt file %d bytes (%.3f of input), lz4 file %d bytes (%.3f)"
            % (kind, sizes["sbt"], sizes["sbt"] / nbytes, sizes["lz4"], sizes["lz4"] / nbytes))
        for p in (out_sbt, out_lz4):
            if os.path.exists(p):
                os.unlink(p)
        if kind == "compressible":
            os.unlink(src)


def bench_dedup(build, tmp, mib):
    tool = os.path.join(build, "tests/bench/bench_blob")
    src = os.path.join(tmp, "random.bin")
    if not os.path.exists(src):
        run([tool, "gen", "random", str(mib), src])
    out = os.path.join(tmp, "dedup.sbt")
    _, text, _ = run([tool, "dedup", src, out])
    f = fields(text)
    pct = float(f["percent"])
    log("dedup %d MiB random: first put added %s bytes, second put of the same bytes "
        "added %s bytes = %.4f%% of the first  goal < 1%%: %s"
        % (mib, f["first_put"], f["second_put"], pct, "met" if pct < 1.0 else "NOT MET"))
    os.unlink(out)


def callgrind_ir(cmd, env, toggle=None):
    """Instructions callgrind counted for cmd (all threads), or inside
    toggle (a function name) and its callees."""
    vg = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    if toggle:
        vg.append("--toggle-collect=" + toggle)
    _, _, err = run(vg + cmd, env=env)
    m = re.search(r"Collected\s*:\s*(\d+)", err)
    if not m:
        sys.stderr.write("bench: no instruction count from callgrind:\n" + err)
        sys.exit(1)
    return int(m.group(1))


def have_capture(build):
    return os.path.exists(os.path.join(build, "tests/bench/bench_record"))


def bench_record(build, tmp, runs, nrec):
    tool = os.path.join(build, "tests/bench/bench_record")
    env = {"TRACESMITH_OUTPUT": os.path.join(tmp, "rec.sbt"),
           "TRACESMITH_STACKS": "none"}
    results = {}
    for threads in (1, 2):
        rates, totals = [], []
        for _ in range(runs):
            _, out, _ = run([tool, str(nrec), str(threads)], env=env)
            f = fields(out)
            rates.append(float(f["records_per_s"]))
            totals.append(nrec / float(f["total_seconds"]))
            if int(f["recorded"]) != nrec:
                log("record: WARNING: %s of %d records recorded" % (f["recorded"], nrec))
        results[threads] = med(rates)
        log("record %d thread(s), %d records, 16-byte payload, stacks none: producers "
            "median %.2f M records/s; until the trace is closed %.2f M records/s"
            % (threads, nrec, med(rates) / 1e6, med(totals) / 1e6))
    log("record 2 threads / 1 thread producer rate: %.2f" % (results[2] / results[1]))
    n = 100000
    for toggle, what in ((None, "whole process (writer thread included)"),
                         ("cap_record", "inside cap_record (the application's thread)")):
        a = callgrind_ir([tool, str(n), "1"], env, toggle)
        b = callgrind_ir([tool, str(2 * n), "1"], env, toggle)
        log("record instructions per record, %s: %.1f  (callgrind: %d records %d Ir, "
            "%d records %d Ir)" % (what, (b - a) / n, n, a, 2 * n, b))
    os.unlink(env["TRACESMITH_OUTPUT"])


def bench_stacks(build, tmp, runs, nrec):
    tool = os.path.join(build, "tests/bench/bench_stacks")
    depth = 16
    out = os.path.join(tmp, "stacks.sbt")

    def one(mode, stacks, every=1):
        env = {"TRACESMITH_OUTPUT": out}
        if stacks == "disabled":
            env["TRACESMITH_DISABLE"] = "1"
        else:
            env["TRACESMITH_STACKS"] = stacks
        _, text, _ = run([tool, mode, str(nrec), str(depth), str(every)], env=env)
        f = fields(text)
        return float(f["producer_ns_per_record"]), f

    for mode in ("same", "distinct"):
        ra, rb = alternate(runs, lambda: one(mode, "all"), lambda: one(mode, "none"))
        diffs = [a[0] - b[0] for a, b in zip(ra, rb)]
        f = ra[-1][1]
        log("stacks %-8s depth %d (%d frames per stack, main and libc included), %d records: "
            "cost per stack (all - none, median of pairs) %.0f ns; stacks taken %s, unique %s"
            % (mode, depth, 2 * depth + 5, nrec, med(diffs), f["stacks_taken"],
               f["stacks_unique"]))
    base = [one("same", "disabled", 10)[0] for _ in range(runs)]
    for stacks in ("none", "work", "all"):
        ra, rb = alternate(runs, lambda: one("same", stacks, 10),
                           lambda: one("same", "disabled", 10))
        diffs = [a[0] - b[0] for a, b in zip(ra, rb)]
        log("stacks per-record cost with TRACESMITH_STACKS=%-4s (1 in 10 records flagged "
            "WORK, same stack): %.0f ns over the loop without capture (%.0f ns)"
            % (stacks, med(diffs), med(base)))
    if os.path.exists(out):
        os.unlink(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--only", default="blob,dedup,record,stacks")
    a = ap.parse_args()
    mib = int(os.environ.get("BENCH_MIB", "256"))
    runs = int(os.environ.get("BENCH_RUNS", "5"))
    nrec = int(os.environ.get("BENCH_RECORDS", "2000000"))
    nstack = int(os.environ.get("BENCH_STACK_RECORDS", "65536"))
    only = set(a.only.split(","))
    log("bench: %s, %d CPUs, BENCH_MIB=%d BENCH_RUNS=%d, files in %s" %
        (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(), mib, runs,
         os.path.dirname(os.path.abspath(a.tmp))))
    if "blob" in only:
        bench_blob(a.build, a.tmp, mib, runs)
    if "dedup" in only:
        bench_dedup(a.build, a.tmp, mib)
    if only & {"record", "stacks"} and not have_capture(a.build):
        log("record/stacks: SKIPPED: %s/tests/bench/bench_record not built "
            "(capture runtime missing)" % a.build)
        return
    if "record" in only:
        bench_record(a.build, a.tmp, runs, nrec)
    if "stacks" in only:
        bench_stacks(a.build, a.tmp, runs, nstack)


if __name__ == "__main__":
    main()
