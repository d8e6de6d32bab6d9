"""The floods: N epochs written as fast as the client reads them.

  flood-tpv   TPV reports only: a client's own cost per fix
  flood-sky   TPV + a 1.35 KB SKY per epoch: what gpsd really sends (a client that
              skips SKY unparsed gains here; one that parses every report pays)
  long        loctrack alone, 1,000,000 epochs of flood-sky: memory over time
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import time

from support import flood_emulator, processes as procs  # scripts/support
from .clients import C_CLIENT, LOCTRACK, SWIFT_PORT, rotate
from .findings import log, warn
from .measure import MemoryPeak, run_measured, status_kb

WORKLOADS = {"flood-tpv": ["-t"], "flood-sky": []}

# loctrack's one field of its own (docs/json.md), the last of each line; without it a
# loctrack line must be the C client's line byte for byte.
STATIONARY_RE = re.compile(rb',"stationary":(?:true|false)(?=\}\n)')


def start_emulator(emulator: str, args) -> tuple[subprocess.Popen, int]:
    return flood_emulator.start(emulator, args)


def stderr_tail(path: str) -> str:
    with open(path, "rb") as f:
        return f.read().decode(errors="replace").strip().replace("\n", " | ")[-400:]


def flood_run(opts, client, workload: str, workdir: str):
    """One client against one fresh emulator. Returns its measurements, or None."""
    epochs = opts.flood_epochs
    emulator, port = start_emulator(opts.emulator, ["-n", epochs, "-C", 1] + WORKLOADS[workload])
    out_path = os.path.join(workdir, f"{workload}-{client.file_name}.out")
    err_path = os.path.join(workdir, f"{workload}-{client.file_name}.err")
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            m = run_measured(client.stream_stages(f"127.0.0.1:{port}"), out, err, opts.flood_timeout, workdir)
        if m is None:
            warn(f"{workload}: {client.name} did not finish {epochs} epochs within {opts.flood_timeout:.0f} s")
            return None
        with open(out_path, "rb") as f:
            m["fixes"] = client.count_fixes(f.read())
        code = m["codes"][-1]
        if client.exit_code is not None and code != client.exit_code:
            warn(f"{workload}: {client.name} exited {code} (expected {client.exit_code}): {stderr_tail(err_path)}")
        if m["fixes"] != epochs:
            warn(f"{workload}: {client.name} printed {m['fixes']} fixes for {epochs} epochs; "
                 f"its stderr: {stderr_tail(err_path)}")
        m.update(cpu_us=(m["user"] + m["sys"]) / epochs * 1e6, user_us=m["user"] / epochs * 1e6,
                 sys_us=m["sys"] / epochs * 1e6, rss_mb=None if m["rss_kb"] is None else m["rss_kb"] / 1024,
                 private_mb=None if m["private_kb"] is None else m["private_kb"] / 1024, out=out_path)
        return m
    finally:
        procs.terminate(emulator, 2)


def difference(loctrack_path: str, c_path: str, name: str = LOCTRACK):
    """None when `name`'s output (loctrack's less its `stationary` field) is the C client's
    byte for byte; else where they first differ."""
    with open(loctrack_path, "rb") as a, open(c_path, "rb") as b:
        mine, reference = STATIONARY_RE.sub(b"", a.read()), b.read()
    if mine == reference:
        return None
    mine_lines, reference_lines = mine.splitlines(True), reference.splitlines(True)
    for number, (m, c) in enumerate(zip(mine_lines, reference_lines), 1):
        if m != c:
            return f"line {number}: {name} {m[:300]!r}, C client {c[:300]!r}"
    return f"{len(mine_lines)} lines against {len(reference_lines)}"


def run_floods(opts, clients: dict, workdir: str):
    """{workload: [{client name: measurements}, one per round]}"""
    results = {}
    for workload in WORKLOADS:
        log(f"== {workload}: {opts.flood_epochs:,} epochs, {opts.rounds} rounds, {len(clients)} clients")
        rounds = []
        for r in range(opts.rounds):
            result = {}
            for name in rotate(clients, r):
                m = flood_run(opts, clients[name], workload, workdir)
                result[name] = m
                if m:
                    log(f"  round {r + 1} {name:21s} wall {m['wall']:7.3f} s  cpu/fix {m['cpu_us']:6.2f} us "
                        f"(user {m['user_us']:6.2f}, sys {m['sys_us']:6.2f})  rss {m['rss_mb'] or 0:5.1f} MB  private "
                        f"{m['private_mb'] or 0:5.2f} MB  fixes {m['fixes']}")
            for name in (LOCTRACK, SWIFT_PORT):
                if result.get(name) and result.get(C_CLIENT):
                    found = difference(result[name]["out"], result[C_CLIENT]["out"], name)
                    if found:
                        warn(f"{workload} round {r + 1}: {name}'s fixes differ from the C client's: {found}")
            for m in result.values():
                if m:
                    os.unlink(m.pop("out"))  # 100k lines per client and round: do not keep them
            rounds.append(result)
        results[workload] = rounds
    return results


def run_long(opts, clients: dict, workdir: str):
    """loctrack alone on a long flood-sky. Private memory (peak RssAnon so far) and VmHWM
    once each checkpoint's fixes were printed, and at the end."""
    epochs = opts.long_epochs
    checkpoints = sorted({opts.long_checkpoint, epochs // 2})
    log(f"== long flood: loctrack, {epochs:,} epochs (TPV + SKY); memory at {checkpoints} fixes and at the end")
    emulator, port = start_emulator(opts.emulator, ["-n", epochs, "-C", 1])
    err_path = os.path.join(workdir, "long.err")
    marks = {}
    try:
        argv = clients[LOCTRACK].stream_stages(f"127.0.0.1:{port}")[0]
        with open(err_path, "wb") as err:
            proc = procs.spawn(argv, stdout=subprocess.PIPE, stderr=err)
        memory = MemoryPeak(proc.pid, argv)
        fd = proc.stdout.fileno()
        lines = 0
        pending = list(checkpoints)
        deadline = time.monotonic() + opts.long_timeout
        while True:
            if time.monotonic() > deadline:
                warn("long flood: timed out")
                break
            memory.sample()
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            lines += chunk.count(b"\n")
            while pending and lines >= pending[0]:
                memory.sample()
                marks[pending.pop(0)] = (memory.peak_kb, status_kb(proc.pid).get("VmHWM"))
        waited = procs.wait_rusage(proc, 30)
        if waited is None:
            warn("long flood: loctrack did not exit")
            return None
        marks[epochs] = (memory.peak_kb, memory.hwm_kb)  # as last sampled: wait4's ru_maxrss is the driver's
        if lines != epochs:
            warn(f"long flood: loctrack printed {lines} fixes for {epochs} epochs; its stderr: {stderr_tail(err_path)}")
        for count, (private_kb, hwm_kb) in sorted(marks.items()):
            log(f"  after {count:>9,} fixes: private {private_kb / 1024 if private_kb else 0:.2f} MB, "
                f"VmHWM {hwm_kb / 1024 if hwm_kb else 0:.1f} MB")
        return {"marks": marks, "lines": lines}
    finally:
        procs.terminate(emulator, 2)
