"""The udp part: `loctrack stream --publish udp://` against gpsd's own `gps2udp`.

Three runs per workload (flood-tpv, flood-sky; the floods part's N epochs, at most 10,000) and round, in an
order that rotates round by round, each to a fresh UDP socket of the driver's on 127.0.0.1:

  --publish udp:// (NMEA)   `loctrack stream --no-reconnect --publish udp://…`: RMC and GGA per
                            fix, one sentence per datagram (the default)
  --publish udp:// (JSON)   the same with `--format json`: one TPV line per datagram
  gps2udp -t                gpsd's forwarder: `gps2udp -t -c N -u …`, gpsd's TPV lines as
                            they come, one per datagram (it has no NMEA to send here: the
                            emulator speaks JSON, as gpsd does to a JSON watcher)

The receiver counts what arrives without judging it: UDP may drop on loopback when the
driver reads slower than a flood sends, and neither sender waits for it. Checks (run.py
exits 1): each loctrack exits as a stream does when gpsd goes away (69), gps2udp with 0,
and the first datagrams to arrive are what each sends (`$GPRMC`/`$GPGGA` sentences, TPVs).
"""

from __future__ import annotations

import os
import socket
import threading

from .clients import rounds_of
from .findings import log, warn
from .flood import WORKLOADS, start_emulator, stderr_tail
from .measure import median_ratios, medians, run_measured
from support import processes as procs  # scripts/support
from .report import fmt

NMEA, JSON, GPS2UDP = "--publish udp:// (NMEA)", "--publish udp:// (JSON)", "gps2udp -t"
VARIANTS = (NMEA, JSON, GPS2UDP)
UDP_CHECKS = ("udp: each loctrack exited as a stream does when gpsd goes away, gps2udp with 0; "
              "the datagrams were RMC/GGA sentences or TPV lines, one per datagram")
STREAM_EXIT = 69


def gps2udp() -> str | None:
    return "/usr/bin/gps2udp" if os.access("/usr/bin/gps2udp", os.X_OK) else None


class Receiver:
    """A UDP socket on 127.0.0.1 that counts datagrams on a thread and keeps the first few."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.count, self.first, self.stopping = 0, [], False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopping:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            self.count += 1
            if len(self.first) < 4:
                self.first.append(data)

    def close(self):
        self.stopping = True
        self.thread.join()
        self.sock.close()


# gps2udp without -c reconnects for ever once gpsd goes; -c counts every line it reads: the
# emulator's VERSION, DEVICES and DEVICE, then per epoch a TPV (and a SKY in flood-sky).
PREAMBLE_LINES = 3
LINES_PER_EPOCH = {"flood-tpv": 1, "flood-sky": 2}


def epochs_of(opts) -> int:
    """The part's epochs: the floods' N, at most 10,000, since gps2udp takes about 0.4 to 1 ms of
    CPU per line (a flood of 100,000 epochs would keep it busy for minutes a run)."""
    return min(opts.flood_epochs, 10_000)


def argv_of(opts, variant: str, workload: str, source: str, port: int) -> list[str]:
    if variant == GPS2UDP:
        lines = PREAMBLE_LINES + LINES_PER_EPOCH[workload] * epochs_of(opts)
        # Short options: gpsd 3.22's gps2udp takes no long ones.
        return [gps2udp(), "-t", "-c", str(lines), "-u", f"127.0.0.1:{port}", source]
    json = ["--format", "json"] if variant == JSON else []
    return [opts.loctrack, "stream", "--no-reconnect", *json, "--publish", f"udp://127.0.0.1:{port}", source]


def looks_right(variant: str, first: list[bytes]) -> bool:
    if not first:
        return False
    if variant == NMEA:
        return all(d.startswith((b"$GPRMC,", b"$GPGGA,", b"$GNRMC,", b"$GNGGA,")) and d.endswith(b"\r\n")
                   and d.count(b"\n") == 1 for d in first)
    return all(d.lstrip().startswith(b'{"class":"TPV"') and d.count(b"\n") <= 1 for d in first)


def measured_run(opts, variant: str, workload: str, workdir: str):
    epochs = epochs_of(opts)
    receiver = Receiver()
    emulator, port = start_emulator(opts.emulator, ["-n", epochs, "-C", 1] + WORKLOADS[workload])
    err_path = os.path.join(workdir, "udp.err")
    try:
        with open(os.devnull, "wb") as out, open(err_path, "wb") as err:
            m = run_measured([argv_of(opts, variant, workload, f"127.0.0.1:{port}", receiver.port)], out, err,
                             opts.flood_timeout, workdir)
    finally:
        procs.terminate(emulator, 2)
        receiver.close()
    if m is None:
        warn(f"udp {workload}: {variant} did not finish {epochs} epochs within {opts.flood_timeout:.0f} s")
        return None
    expected = 0 if variant == GPS2UDP else STREAM_EXIT
    if m["codes"][-1] != expected:
        warn(f"udp {workload}: {variant} exited {m['codes'][-1]} (expected {expected}): {stderr_tail(err_path)}")
    if not looks_right(variant, receiver.first):
        warn(f"udp {workload}: {variant} sent {receiver.first[:2]!r}")
    m.update(cpu_us=(m["user"] + m["sys"]) / epochs * 1e6, received=receiver.count,
             private_mb=None if m["private_kb"] is None else m["private_kb"] / 1024)
    return m


def run_udp(opts, workdir: str):
    """{"rounds": {workload: [{variant: measurements}]}, "names": variants}"""
    base = os.path.join(workdir, "udp")
    os.makedirs(base, exist_ok=True)
    names = [v for v in VARIANTS if v != GPS2UDP or gps2udp()]
    results = {}
    for workload in WORKLOADS:
        log(f"== udp, {workload}: {epochs_of(opts):,} epochs, {opts.rounds} rounds")
        results[workload] = rounds_of(
            opts, names, lambda variant: measured_run(opts, variant, workload, base),
            lambda m: f"wall {m['wall']:7.3f} s  cpu/fix {m['cpu_us']:7.2f} us  "
                      f"private {m['private_mb'] or 0:6.2f} MB  datagrams received {m['received']}")
    return {"rounds": results, "names": names}


ROWS = (("wall", "wall time (s)", 3), ("cpu_us", "CPU per fix, user + sys (µs)", 2),
        ("private_mb", "peak private memory, RssAnon (MB)", 2), ("received", "datagrams received", 0))


def udp_section(opts, udp) -> list[str]:
    names = udp["names"]
    pairs = [(a, GPS2UDP) for a in (NMEA, JSON)] if GPS2UDP in names else []
    out = ["", "## UDP: `stream --publish udp://` against gps2udp", "",
           "Each run sends the whole flood to a UDP socket of the driver's; the received count is what the "
           "driver read (loopback drops what it reads too slowly; neither sender waits). "
           "Ratios: loctrack / gps2udp, per round, then the median.", "",
           "| figure | " + " | ".join(names) + "".join(f" | {a.split(' (')[1][:-1]} / gps2udp" for a, _ in pairs) + " |",
           "|---|" + "---:|" * (len(names) + len(pairs))]
    for workload, rounds in udp["rounds"].items():
        for key, label, digits in ROWS:
            meds = medians(rounds, names, key)
            ratios = median_ratios(rounds, pairs, key)
            out.append(f"| {workload} ({epochs_of(opts):,} epochs): {label} | "
                       + " | ".join(fmt(v, digits) for v in meds)
                       + "".join(f" | {fmt(v)}" for v in ratios) + " |")
    return out
