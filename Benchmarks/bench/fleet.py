"""The fleet part: many trackers on one machine, publishing into one broker.

`--fleet-devices` (50) loctrack processes, each fed by a paced emulator of its own
(`flood_gpsd -r HZ -o I`: TPV + SKY at `--fleet-rate` Hz, track I, the emulators spread over
one period by -P), each `loctrack stream --publish mqtt://127.0.0.1:PORT/fleet/devNN --client-id
devNN --spool DIR/devNN --qos 1 --format json --no-reconnect`, for `--fleet-seconds` seconds,
all into one mosquitto (scripts/support/mqtt_broker.py). A subscriber on `fleet/#` (`mosquitto_sub -q 1 -v`)
checks that every fix of every device arrived: per device the count, the order of the TPV
times, and that its first fix lies on its own track (run.py exits 1 otherwise). Figures:
messages per second overall (all messages / first spawn to the subscriber having them all),
the broker's CPU (% of one core over that time) and VmHWM, loctrack's CPU (% of a core, µs
per message) and memory (peak RSS, peak RssAnon) per process: median and maximum.
"""

from __future__ import annotations

import json
import os
import threading
import time

from .broker import Broker, Subscriber
from .findings import lacks_feature, log, warn
from .flood import start_emulator, stderr_tail
from .measure import median, run_measured
from support import processes as procs  # scripts/support
from support import spool as spool_files
from .publish import STREAM_EXIT, arrival_problem, folder_bytes, publish_argv
from .report import fmt

FIRST_LAT = 38.110494  # the emulator's track 0 starts here; track I 0.001 * I further north
FLEET_CHECKS = "fleet: every fix of every device arrived on its own topic, in order, from its own track"
SAMPLE_S = 0.25  # memory sampling per process: 50 processes at 10 ms would load the machine themselves


def device_name(index: int) -> str:
    return f"dev{index:02d}"


def check_devices(lines, devices: int, epochs: int) -> list[str]:
    """What is wrong with the subscriber's `TOPIC PAYLOAD` lines; [] when every device's fixes arrived."""
    by_device = {}
    for line in lines:
        topic, _, payload = line.partition(b" ")
        by_device.setdefault(topic.decode(errors="replace"), []).append(payload)
    found = []
    for index in range(devices):
        topic = f"fleet/{device_name(index)}"
        payloads = by_device.pop(topic, [])
        problem = arrival_problem(payloads, epochs)
        if not problem:
            lat = json.loads(payloads[0]).get("lat")
            if lat is None or abs(lat - (FIRST_LAT + 0.001 * index)) > 1e-5:
                problem = f"first fix at latitude {lat}, not on track {index}"
        if problem:
            found.append(f"{topic}: {problem}")
    found += [f"{topic}: {len(payloads)} messages on a topic no device publishes" for topic, payloads in by_device.items()]
    return found


def run_fleet(opts, workdir: str):
    """The fleet's figures, or None when it could not run."""
    if lacks_feature(opts.loctrack, "--publish", "fleet"):
        return None
    devices, rate = opts.fleet_devices, opts.fleet_rate
    epochs = max(1, round(opts.fleet_seconds * rate))
    total = devices * epochs
    base = os.path.join(workdir, "fleet")
    os.makedirs(base, exist_ok=True)
    log(f"== fleet: {devices} loctrack processes at {rate:g} Hz for {opts.fleet_seconds:g} s "
        f"({total:,} messages at QoS 1) into one mosquitto")
    timeout = opts.fleet_seconds + 60
    emulators, results = [], [None] * devices
    broker = subscriber = None
    try:
        broker = Broker(os.path.join(base, "broker"))
        subscriber = Subscriber(broker, "fleet/#", total, os.path.join(base, "arrived.out"), "fleet-sub",
                                verbose=True)
        period_ms = 1000 / rate
        for index in range(devices):
            emulators.append(start_emulator(opts.emulator, ["-n", epochs, "-r", rate, "-C", 1, "-o", index,
                                                            "-P", f"{period_ms * index / devices:.3f}"])[:2])
        broker_before = broker.cpu()
        start = time.monotonic_ns()
        threads = [threading.Thread(target=run_device, args=(opts, broker, index, emulators[index][1], base,
                                                               timeout, results)) for index in range(devices)]
        for thread in threads:
            thread.start()
        # Each tracker's thread ends by run_measured's timeout; the joins have a deadline all the same.
        deadline = time.monotonic() + timeout + 30
        first = first_arrival(subscriber, threads, deadline)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if any(thread.is_alive() for thread in threads):
            raise RuntimeError(f"trackers still measured {timeout + 30:.0f} s after the start")
        arrived = subscriber.wait(30)
        broker_cpu = broker.cpu() - broker_before
        memory = broker.memory()
        lines = subscriber.lines()
    except RuntimeError as error:
        warn(f"fleet: {error}")
        return None
    finally:
        for proc in (subscriber, broker):
            if proc:
                proc.stop()
        for emulator, _ in emulators:
            procs.terminate(emulator, 2)
    problems = check_devices(lines, devices, epochs)
    for problem in problems[:10]:
        warn(f"fleet: {problem}")
    if len(problems) > 10:
        warn(f"fleet: {len(problems) - 10} more devices with problems")
    ran = [m for m in results if m]
    if len(ran) < devices or arrived is None:
        warn(f"fleet: {devices - len(ran)} of {devices} loctrack processes failed; the subscriber "
             f"{'had all' if arrived else 'did not get all'} {total:,} messages")
        return None
    wall = (arrived - start) / 1e9
    result = {"devices": devices, "rate": rate, "epochs": epochs, "total": total, "wall": wall,
              "msg_per_s": total / wall, "steady_per_s": first and arrived > first and total / ((arrived - first) / 1e9), "broker_pct": broker_cpu / wall * 100, "broker_us": broker_cpu / total * 1e6,
              "broker_mb": memory["VmHWM"] and memory["VmHWM"] / 1024, "processes": ran}
    log(f"  {total:,} messages in {wall:.2f} s: {result['msg_per_s']:.0f} msg/s, broker {result['broker_pct']:.1f} % "
        f"of a core; loctrack per process: CPU {median([m['cpu_pct'] for m in ran]):.2f} % of a core, "
        f"rss {median([m['rss_mb'] for m in ran]) or 0:.1f} MB, private {median([m['private_mb'] for m in ran]) or 0:.2f} MB")
    return result


def first_arrival(subscriber: Subscriber, threads, deadline: float):
    """The monotonic ns at which the subscriber's output first grew (its first message), sampled
    every 10 ms while the trackers run (until the monotonic deadline); None if nothing arrived
    meanwhile."""
    while any(thread.is_alive() for thread in threads) and time.monotonic() < deadline:
        try:
            if os.path.getsize(subscriber.out_path) > 0:
                return time.monotonic_ns()
        except OSError:
            pass
        time.sleep(0.01)
    return None


def run_device(opts, broker: Broker, index: int, port: int, base: str, timeout: float, results: list):
    """One tracker to its exit (on a thread of the driver's): its measurements into results[index]."""
    name = device_name(index)
    scratch = os.path.join(base, name)
    os.makedirs(scratch, exist_ok=True)
    spool = os.path.join(scratch, "spool")
    err_path = os.path.join(scratch, "err")
    argv = publish_argv(opts, broker.url(f"fleet/{name}"), name, spool, f"127.0.0.1:{port}")
    with open(os.devnull, "wb") as out, open(err_path, "wb") as err:
        m = run_measured([argv], out, err, timeout, scratch, sample_s=SAMPLE_S)
    if m is None:
        warn(f"fleet {name}: did not finish within {timeout:.0f} s")
        return
    if m["codes"] != [STREAM_EXIT]:
        warn(f"fleet {name}: exited {m['codes'][0]} (expected {STREAM_EXIT}): {stderr_tail(err_path)}")
    cpu = m["user"] + m["sys"]
    epochs = max(1, round(opts.fleet_seconds * opts.fleet_rate))
    results[index] = {"cpu_pct": cpu / m["wall"] * 100, "cpu_us": cpu / epochs * 1e6,
                      "rss_mb": m["rss_kb"] and m["rss_kb"] / 1024,
                      "private_mb": m["private_kb"] and m["private_kb"] / 1024,
                      "spool_kb": folder_bytes(spool) / 1024, "pending": spool_files.pending(spool)}
    if results[index]["pending"]:
        warn(f"fleet {name}: {results[index]['pending']} unacknowledged messages left in its spool")


def fleet_section(opts, fleet) -> list[str]:
    """The markdown lines of the fleet part."""
    ran = fleet["processes"]
    rows = [("loctrack CPU per process (% of one core)", "cpu_pct", 3),
            ("loctrack CPU per message (µs)", "cpu_us", 1),
            ("loctrack peak RSS per process (MB)", "rss_mb", 1),
            ("loctrack peak private memory per process, RssAnon (MB)", "private_mb", 2),
            ("loctrack spool on disk at its exit (KB)", "spool_kb", 1),
            ("… unacknowledged messages in it", "pending", 0)]
    out = ["", f"## Fleet: {fleet['devices']} trackers into one broker", "",
           f"{fleet['devices']} `loctrack stream --publish mqtt://127.0.0.1:PORT/fleet/devNN --client-id devNN "
           f"--spool DIR/devNN --qos 1` processes, each on a paced emulator of its own (TPV + SKY at "
           f"{fleet['rate']:g} Hz, a track of its own, {fleet['epochs']:,} epochs), one mosquitto, one subscriber "
           f"on `fleet/#` that checks every device's fixes (count, order, track). Wall time: the first spawn to "
           f"the subscriber having all {fleet['total']:,} messages (it includes the processes' start).", "",
           "| figure | value | |", "|---|---:|---|",
           f"| messages per second, overall (offered: {fleet['devices'] * fleet['rate']:g}) | "
           f"{fmt(fleet['msg_per_s'], 0)} | |",
           f"| messages per second, first to last arrival | {fmt(fleet['steady_per_s'], 0)} | |",
           f"| wall time (s) | {fmt(fleet['wall'], 2)} | |",
           f"| broker CPU (% of one core) | {fmt(fleet['broker_pct'], 2)} | |",
           f"| broker CPU per message (µs) | {fmt(fleet['broker_us'], 1)} | |",
           f"| broker VmHWM (MB) | {fmt(fleet['broker_mb'], 1)} | |"]
    for label, key, digits in rows:
        values = [m[key] for m in ran if m[key] is not None]
        out.append(f"| {label}: median | {fmt(median(values), digits)} | max {fmt(max(values) if values else None, digits)} |")
    return out
