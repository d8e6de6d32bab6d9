#!/usr/bin/env python3
"""Code footprint per fix: the distinct 64-byte lines of code a client runs for each fix.

At 1 Hz every fix finds the caches cold, and its cost follows the code it has to bring back
more than the instructions it runs (docs/performance.md, "Why 1 Hz misses"). This runs one
client under callgrind against a paced emulator (TPV + SKY per epoch), zeroes the counts
after the warm-up, dumps them after a window of fixes, and counts, per thread:

- instructions per fix;
- distinct 64-byte code lines in which any instruction ran ("all");
- those whose busiest instruction ran for at least 90 % of the window's fixes ("steady"):
  the steady path without rare branches (one-off allocations, timeouts);
- the steady lines by object (binary, libgps, libc, ...), and with --functions the
  functions with the most steady lines.

    python3 Benchmarks/footprint.py .build/release/loctrack
    python3 Benchmarks/footprint.py --client c Benchmarks/bin/gpsclient
    python3 Benchmarks/footprint.py --rate 20 --fixes 200 --functions 30 /tmp/loctrack-old

The default, 200 fixes at 20 Hz, keeps a run under a minute; callgrind slows the client
about 50 times, which is still far below the emulator's pace.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import select
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = 64


def start_emulator(emulator: str, rate: float, epochs: int) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([emulator, "-p", "0", "-n", str(epochs), "-r", str(rate), "-C", "1"],
                            stdout=subprocess.PIPE)
    ready, _, _ = select.select([proc.stdout], [], [], 10)
    line = proc.stdout.readline() if ready else b""
    if not line.strip().isdigit():
        proc.kill()
        sys.exit("flood_gpsd did not print its port")
    return proc, int(line)


def client_argv(kind: str, binary: str, port: int) -> list[str]:
    source = f"127.0.0.1:{port}"
    if kind == "loctrack":
        return [binary, "stream", "--format", "json", "--no-reconnect", source]
    return [binary, source]


def read_lines(pipe, count: int, deadline: float) -> int:
    """Reads until `count` more newlines arrived; returns how many did."""
    seen = 0
    while seen < count and time.monotonic() < deadline:
        ready, _, _ = select.select([pipe], [], [], 1)
        if ready:
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                break
            seen += chunk.count(b"\n")
    return seen


def parse_dump(path: str):
    """{(object, function): {address: executions}} from one callgrind dump with --dump-instr=yes.

    Cost lines after `calls=` carry the callee's inclusive cost at the call site: skipped
    (the call instruction's own execution has a line of its own)."""
    names = {"ob": {}, "fn": {}}
    current = {"ob": "?", "fn": "?"}
    costs = collections.defaultdict(lambda: collections.defaultdict(int))
    positions = ["instr"]
    last = [0, 0]
    skip_next = False
    name_line = re.compile(r"^(c?(?:ob|fn|fl|fi|fe))=(?:\((\d+)\))?\s*(.*)$")
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line:
                continue
            if line.startswith("positions:"):
                positions = line.split()[1:]
                last = [0] * len(positions)
                continue
            m = name_line.match(line)
            if m:
                key, number, name = m.groups()
                base = key.lstrip("c")
                if base in ("ob", "fn"):
                    table = names[base]
                    if number is not None:
                        if name:
                            table[number] = name
                        name = table.get(number, name)
                    if not key.startswith("c"):
                        current[base] = name
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            first = line[0]
            if not (first.isdigit() or first in "+-*"):
                continue
            fields = line.split()
            values = []
            for i in range(len(positions)):
                token = fields[i]
                if token == "*":
                    value = last[i]
                elif token[0] in "+-":
                    value = last[i] + int(token, 0)
                else:
                    value = int(token, 0)
                last[i] = value
                values.append(value)
            if skip_next:
                skip_next = False
                continue
            ir = int(fields[len(positions)]) if len(fields) > len(positions) else 0
            costs[(current["ob"], current["fn"])][values[0]] += ir
    return costs


def short_object(path: str) -> str:
    name = os.path.basename(path)
    for prefix in ("libgps", "libc.so", "libm.so", "ld-linux", "libstdc++", "libgcc"):
        if name.startswith(prefix):
            return prefix.removesuffix(".so")
    return name


def summarize(path: str, fixes: int, top: int) -> dict:
    costs = parse_dump(path)
    threshold = 0.9 * fixes
    all_lines, steady_lines = set(), set()
    by_object, by_function = collections.Counter(), collections.Counter()
    line_busiest = collections.defaultdict(int)
    line_owner = {}
    instructions = 0
    for (obj, fn), addresses in costs.items():
        for address, ir in addresses.items():
            instructions += ir
            cache_line = address // LINE
            all_lines.add(cache_line)
            if ir > line_busiest[cache_line]:
                line_busiest[cache_line] = ir
                line_owner[cache_line] = (obj, fn)
    for cache_line, busiest in line_busiest.items():
        if busiest >= threshold:
            steady_lines.add(cache_line)
            obj, fn = line_owner[cache_line]
            by_object[short_object(obj)] += 1
            by_function[fn] += 1
    return {"instructions": instructions / fixes, "all": len(all_lines), "steady": len(steady_lines),
            "objects": by_object, "functions": by_function.most_common(top)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--client", choices=["loctrack", "c", "swift"], default="loctrack",
                        help="how to start it: loctrack's `stream --format json`, or CLIENT HOST:PORT")
    parser.add_argument("--emulator", default=os.path.join(HERE, "bin", "flood_gpsd"))
    parser.add_argument("--rate", type=float, default=20.0, help="epochs per second (default 20)")
    parser.add_argument("--warm", type=int, default=40, help="fixes before the window (default 40)")
    parser.add_argument("--fixes", type=int, default=200, help="fixes in the window (default 200)")
    parser.add_argument("--functions", type=int, default=0, help="list the N functions with most steady lines")
    parser.add_argument("--keep", help="keep the callgrind files in this folder")
    args = parser.parse_args()

    workdir = args.keep or tempfile.mkdtemp(prefix="footprint-")
    os.makedirs(workdir, exist_ok=True)
    epochs = args.warm + args.fixes + 40
    emulator, port = start_emulator(args.emulator, args.rate, epochs)
    out_file = os.path.join(workdir, "callgrind.out")
    argv = ["valgrind", "--tool=callgrind", "--separate-threads=yes", "--dump-instr=yes",
            f"--callgrind-out-file={out_file}"] + client_argv(args.client, args.binary, port)
    client = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60 + 3 * epochs / args.rate
        if read_lines(client.stdout, args.warm, deadline) < args.warm:
            sys.exit("the client printed too few fixes during the warm-up")
        subprocess.run(["callgrind_control", "-z", str(client.pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if read_lines(client.stdout, args.fixes, deadline) < args.fixes:
            sys.exit("the client printed too few fixes during the window")
        subprocess.run(["callgrind_control", "-d", str(client.pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        client.terminate()
        client.wait(30)
        emulator.kill()
        emulator.wait()
    # With --separate-threads, one file per thread for each dump: OUT.1-01, OUT.1-02, ...
    dumps = sorted(glob.glob(out_file + ".1-*")) or sorted(glob.glob(out_file + "*.1-*"))
    if not dumps:
        sys.exit(f"no dump in {workdir}")
    total_all = total_steady = 0
    for path in dumps:
        s = summarize(path, args.fixes, args.functions)
        if s["instructions"] < 100:
            continue  # a thread that did nothing in the window (signals, writer)
        total_all += s["all"]
        total_steady += s["steady"]
        print(f"thread {path.rsplit('-', 1)[1]}: {s['instructions']:,.0f} instructions per fix, "
              f"{s['all']} lines, {s['steady']} steady")
        print("   steady by object: " + ", ".join(f"{o} {n}" for o, n in s["objects"].most_common()))
        for fn, n in s["functions"]:
            print(f"   {n:4d}  {fn[:150]}")
    print(f"all threads: {total_all} lines, {total_steady} steady (code lines per fix)")
    if not args.keep:
        for path in glob.glob(os.path.join(workdir, "*")):
            os.unlink(path)
        os.rmdir(workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
