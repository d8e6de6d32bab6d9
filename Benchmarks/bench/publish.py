"""The publish part: `loctrack stream --publish` against the pipeline a user would write.

  loctrack --publish          `loctrack stream --publish mqtt://127.0.0.1:PORT/bench --qos 1
                              --client-id bench-loctrack --spool DIR --format json --no-reconnect`
  loctrack --publish --output the same, also recording every fix into a track file (two sinks in
                              one process: the file is checked to hold every fix)
  loctrack | mosquitto_pub    `loctrack stream --format json --no-reconnect | mosquitto_pub -h 127.0.0.1
                              -p PORT -t bench -l -q 1` (no spool: what it cannot send is lost)

Both on the floods (flood-tpv, flood-sky; the floods part's N epochs), in an order that
rotates round by round, each run with a fresh broker (scripts/support/mqtt_broker.py) and a subscriber
(`mosquitto_sub -q 1 -C N`) that listens before anything is published. The emulator keeps
the connection open after its N epochs (-l) and is stopped once the subscriber has them all:
loctrack waits only 2 s for acknowledgements after gpsd goes away (the rest stays in its
spool for the next start), and a flood is read far faster than it is published. Figures:
end-to-end wall time (the publisher's spawn to the subscriber having all N), messages per
second, CPU per message of loctrack, of mosquitto_pub and of the broker, peak RSS and private
memory of the publishing side, the broker's VmHWM, and what is left in loctrack's spool at its
exit. Checks (run.py exits 1): the subscriber gets exactly N messages, every one a TPV, in the
order of their TPV times; the publisher exits as a stream does when gpsd goes away (69);
nothing is left unacknowledged in the spool.
"""

from __future__ import annotations

import os
import shutil
import time

from .broker import MOSQUITTO_PUB, Broker, Subscriber
from .clients import TIME_RE, TPV_START, rounds_of
from .findings import lacks_feature, log, warn
from .flood import WORKLOADS, start_emulator, stderr_tail
from .measure import median_ratios, medians, run_measured
from support import processes as procs  # scripts/support
from support import spool as spool_files
from .report import fmt, verdict

PUBLISH, BOTH, PIPELINE = "loctrack --publish", "loctrack --publish --output", "loctrack | mosquitto_pub"
VARIANTS = (PUBLISH, BOTH, PIPELINE)
SPOOLING = (PUBLISH, BOTH)
TOPIC, CLIENT_ID = "bench", "bench-loctrack"
STREAM_EXIT = 69  # --no-reconnect, gpsd went away (docs/exit-codes.md)
PUBLISH_CHECKS = ("publish: the subscriber got every message, each a TPV, in the order of their times; each "
                  "publisher exited as a stream does when gpsd goes away")
ARRIVAL_TIMEOUT = 30  # s the subscriber may still need once the publisher has exited


def publish_argv(opts, url: str, client_id: str, spool: str, source: str) -> list[str]:
    return [opts.loctrack, "stream", "--publish", url, "--qos", "1", "--client-id", client_id, "--spool", spool,
            "--format", "json", "--no-reconnect", source]


def stages_of(opts, variant: str, broker: Broker, spool: str, source: str, track: str):
    if variant == PUBLISH:
        return [publish_argv(opts, broker.url(TOPIC), CLIENT_ID, spool, source)]
    if variant == BOTH:
        return [publish_argv(opts, broker.url(TOPIC), CLIENT_ID, spool, source)[:-1] + ["--output", track, source]]
    return [[opts.loctrack, "stream", "--format", "json", "--no-reconnect", source],
            [MOSQUITTO_PUB, "-h", "127.0.0.1", "-p", str(broker.port), "-t", TOPIC, "-l", "-q", "1"]]


def arrival_problem(payloads, expected: int):
    """None when `payloads` are `expected` TPV lines in strictly increasing TPV time; else what is wrong."""
    if len(payloads) != expected:
        return f"{len(payloads)} messages arrived of {expected}"
    previous = b""
    for number, payload in enumerate(payloads, 1):
        match = TIME_RE.search(payload) if payload.startswith(TPV_START) else None
        if not match:
            return f"message {number} is not a TPV with a time: {payload[:200]!r}"
        if match.group(1) <= previous:
            return f"message {number} ({match.group(1).decode()}) does not come after {previous.decode()}"
        previous = match.group(1)
    return None


def folder_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def publish_run(opts, variant: str, workload: str, workdir: str):
    """One publisher, a fresh broker and subscriber, one flood. Returns its measurements, or None."""
    epochs = opts.publish_messages
    broker = Broker(os.path.join(workdir, "broker"))
    spool = os.path.join(workdir, "spool")
    shutil.rmtree(spool, ignore_errors=True)
    track = os.path.join(workdir, "track.json")
    if os.path.exists(track):
        os.remove(track)
    err_path = os.path.join(workdir, "publish.err")
    emulator = subscriber = None
    try:
        subscriber = Subscriber(broker, TOPIC, epochs, os.path.join(workdir, "arrived.out"), "bench-sub")
        emulator, port = start_emulator(opts.emulator, ["-n", epochs, "-C", 1, "-l", ARRIVAL_TIMEOUT]
                                        + WORKLOADS[workload])
        subscriber.on_done = lambda: procs.terminate(emulator, 2)  # all arrived: gpsd goes away, the publisher ends
        stages = stages_of(opts, variant, broker, spool, f"127.0.0.1:{port}", track)
        broker_before = broker.cpu()
        start = time.monotonic_ns()
        with open(os.devnull, "wb") as out, open(err_path, "wb") as err:
            m = run_measured(stages, out, err, opts.flood_timeout, workdir)
        arrived = subscriber.wait(ARRIVAL_TIMEOUT if m else 0)
        broker_cpu = broker.cpu() - broker_before
        memory = broker.memory()
        payloads = subscriber.lines()
    except RuntimeError as error:  # a broker that did not listen, a subscriber that did not subscribe
        warn(f"publish {workload}: {variant}: {error}")
        return None
    finally:
        for proc in (subscriber, broker):
            if proc:
                proc.stop()
        if emulator:
            procs.terminate(emulator, 2)
    if m is None:
        warn(f"publish {workload}: {variant} did not finish {epochs} epochs within {opts.flood_timeout:.0f} s")
        return None
    pending = spool_files.pending(spool) if variant in SPOOLING else None
    problem = arrival_problem(payloads, epochs)
    if not problem and variant == BOTH:
        with open(track, "rb") as f:
            recorded = f.read().splitlines()
        if recorded != payloads:
            problem = f"the track file holds {len(recorded)} lines, not the {len(payloads)} messages in order"
    if problem or arrived is None:
        left = f" ({pending} unacknowledged in the spool at exit)" if pending else ""
        warn(f"publish {workload}: {variant}: {problem or 'the subscriber did not exit'}{left}; "
             f"publisher: {stderr_tail(err_path)}; broker: {broker.log_tail()}")
        return None
    expected = [STREAM_EXIT] + [0] * (len(stages) - 1)
    if m["codes"] != expected:
        warn(f"publish {workload}: {variant} exited {m['codes']} (expected {expected}): {stderr_tail(err_path)}")
    wall = (arrived - start) / 1e9
    m.update(e2e=wall, rate=epochs / wall, loctrack_us=m["stage_cpu"][0] / epochs * 1e6,
             pub_us=m["stage_cpu"][1] / epochs * 1e6 if len(stages) > 1 else None,
             cpu_us=(m["user"] + m["sys"]) / epochs * 1e6, broker_us=broker_cpu / epochs * 1e6,
             rss_mb=m["rss_kb"] and m["rss_kb"] / 1024, private_mb=m["private_kb"] and m["private_kb"] / 1024,
             broker_mb=memory["VmHWM"] and memory["VmHWM"] / 1024,
             spool_kb=folder_bytes(spool) / 1024 if variant in SPOOLING else None,
             pending=pending)
    if m["pending"]:
        warn(f"publish {workload}: {variant} left {m['pending']} unacknowledged messages in its spool")
    return m


def describe_publish(m) -> str:
    pub = f" + pub {m['pub_us']:5.2f}" if m["pub_us"] is not None else ""
    return (f"end-to-end {m['e2e']:7.3f} s  {m['rate']:8.0f} msg/s  cpu/msg loctrack {m['loctrack_us']:5.2f}{pub} "
            f"broker {m['broker_us']:5.2f} us  rss {m['rss_mb'] or 0:5.1f} MB  private {m['private_mb'] or 0:5.2f} MB")


def run_publish(opts, workdir: str):
    """{workload: [{variant: measurements}, one per round]}; only the pipeline (and a problem) when
    loctrack cannot publish."""
    variants = list(VARIANTS)
    if lacks_feature(opts.loctrack, "--publish", "publish"):
        variants.remove(PUBLISH)
        variants.remove(BOTH)
    base = os.path.join(workdir, "publish")
    os.makedirs(base, exist_ok=True)
    results = {}
    for workload in WORKLOADS:
        log(f"== publish, {workload}: {opts.publish_messages:,} messages at QoS 1, {opts.rounds} rounds: "
            + " against ".join(variants))
        rounds = rounds_of(opts, variants, lambda variant: publish_run(opts, variant, workload, base), describe_publish)
        results[workload] = rounds
    shutil.rmtree(base, ignore_errors=True)
    return results


ROWS = (  # key, label, digits, target on loctrack / pipeline
    ("e2e", "end-to-end wall time, spawn to the subscriber having all (s)", 3, "≤ 1.00"),
    ("rate", "messages per second, end to end", 0, "≥ 1.00"),
    ("cpu_us", "CPU per message, publishing side, user + sys (µs)", 2, None),
    ("loctrack_us", "… of which loctrack (µs)", 2, None),
    ("pub_us", "… of which mosquitto_pub (µs)", 2, None),
    ("broker_us", "broker CPU per message (µs)", 2, None),
    ("rss_mb", "peak RSS, publishing side (MB)", 1, None),
    ("private_mb", "peak private memory, publishing side, RssAnon (MB)", 2, None),
    ("broker_mb", "broker VmHWM (MB)", 1, None),
    ("spool_kb", "loctrack's spool on disk at its exit (KB)", 1, None),
    ("pending", "… unacknowledged messages in it", 0, None),
)


def publish_section(opts, results) -> list[str]:
    """The markdown lines of the publish part: a column per variant, the ratio, the target."""
    out = ["", "## Publish: `stream --publish` against `stream | mosquitto_pub -l`", "",
           "Every fix one QoS 1 message on `bench` into a local mosquitto (a fresh broker per run, "
           "`max_queued_messages 0`); a subscriber (`mosquitto_sub -q 1 -C N`) checks that all N arrived, in "
           "order. Ratio: loctrack --publish / pipeline, per round, then the median; the target is the issue's "
           "\"at least as fast\", with a spool the pipeline does not have.", "",
           "| figure | " + " | ".join(v.replace("|", "\\|") for v in VARIANTS)
           + " | --publish / pipeline | --publish --output / pipeline | target | |",
           "|---|" + "---:|" * len(VARIANTS) + "---:|---:|---|---|"]
    for workload, rounds in results.items():
        for key, label, digits, target in ROWS:
            meds = medians(rounds, VARIANTS, key)
            ratios = median_ratios(rounds, [(v, PIPELINE) for v in SPOOLING], key)
            if target:
                limit = float(target.split()[1])
                held = [None if rm is None else (rm <= limit if target.startswith("≤") else rm >= limit) for rm in ratios]
                mark, target = verdict(held), f"{target} × pipeline"
            else:
                mark, target = "", ""
            out.append(f"| {workload} ({opts.publish_messages:,} messages): {label} | "
                       + " | ".join(fmt(v, digits) for v in meds) + " | " + " | ".join(fmt(rm) for rm in ratios)
                       + f" | {target} | {mark} |")
    return out
