#!/usr/bin/env python3
"""quirks: each real-receiver quirk of gpsd's recordings, checked on loctrack's output.

`make conformance` runs it after scripts/conformance.py, on what loctrack printed
in that run (out/conformance/gpsfake/NAME.log.loctrack.jsonl) and on the TPVs the
same gpsd sent in that run (gpspipe's, NAME.log.gpspipe.jsonl): the captures beside
the logs are gpsd 3.22's, and gpsd 3.25 (Debian 13) sends other TPVs for the same
log (several per epoch, other dates), so loctrack is judged against the gpsd it ran
with. Where a quirk is gpsd's and not the receiver's, its check says what each
version does. Each quirk names the recording that shows it and asserts what
loctrack does with it. A timestamp that steps backwards
(Telit-style) is in none of the 16 recordings, so one capture is replayed with a
step back inserted, through the scripted gpsd.

Exit 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from support.scripted_gpsd import FakeGpsd  # noqa: E402
from support.processes import free_port, kill_group, release_port, spawn, wait_port  # noqa: E402

LOGS = Path(os.environ.get("GPSD_LOGS", ROOT.parent / "shared" / "gpsd-logs"))
OUT = ROOT / "out" / "conformance"
LOCTRACK = os.environ.get("LOCTRACK", str(ROOT / ".build" / "release" / "loctrack"))


def output(log: str) -> list[dict]:
    path = OUT / "gpsfake" / f"{log}.log.loctrack.jsonl"
    return [json.loads(line, parse_float=str) for line in path.read_text().splitlines() if line.strip()]


def gpsd_sent(log: str) -> list[dict]:
    """The TPVs the gpsd of scripts/conformance.py's run sent (its gpspipe -w watcher)."""
    path = OUT / "gpsfake" / f"{log}.log.gpspipe.jsonl"
    reports = [json.loads(line, parse_float=str) for line in path.read_text().splitlines() if line.strip()]
    return [report for report in reports if report.get("class") == "TPV"]


def gpsd_version() -> str:
    """"3.22", "3.25": the gpsd on PATH, the one gpsfake started."""
    words = subprocess.run(["gpsd", "-V"], capture_output=True, text=True, timeout=10).stdout.split()
    return words[1] if len(words) > 1 else "unknown"


GPSD = gpsd_version()


def is_fix(tpv: dict) -> bool:
    return int(tpv.get("mode", 0)) >= 2 and "lat" in tpv and "lon" in tpv and "time" in tpv


def times(fixes: list[dict]) -> list[str]:
    return [fix["time"] for fix in fixes]


CHECKS = []


def quirk(name: str, log: str):
    def register(function):
        CHECKS.append((name, log, function))
        return function
    return register


@quirk("several TPVs per epoch: one fix each, gpsd's last", "haicom-305N")
def several_per_epoch(fixes, tpvs):
    fix_tpvs = [t for t in tpvs if is_fix(t)]
    last = {t["time"]: t for t in fix_tpvs}
    assert len(fix_tpvs) > len(last), "the recording should have several TPVs per epoch"
    assert times(fixes) == list(dict.fromkeys(t["time"] for t in fix_tpvs)), "one fix per epoch, in order"
    assert all(fix["lat"] == last[fix["time"]]["lat"] and fix.get("altHAE") == last[fix["time"]].get("altHAE")
               for fix in fixes), "each fix carries the epoch's last report"
    return f"{len(fix_tpvs)} TPVs with a fix -> {len(fixes)} fixes"


@quirk("repeated timestamps (binary, 5 Hz): never twice", "ublox-neo-m8n")
def repeated_timestamps(fixes, tpvs):
    stamps = [t["time"] for t in tpvs if is_fix(t)]
    repeats = len(stamps) - len(set(stamps))
    # gpsd 3.22 sends 44 TPVs, 20 of them a time already sent; gpsd 3.25 one TPV an epoch (22).
    assert repeats > 0 or GPSD != "3.22", "gpsd 3.22 repeats timestamps in this recording"
    assert len(times(fixes)) == len(set(times(fixes))) == len(set(stamps))
    return f"gpsd {GPSD}: {repeats} repeated timestamps -> {len(fixes)} distinct fixes"


@quirk("TPVs with a position but no time: not fixes", "bu353s4")
def position_without_time(fixes, tpvs):
    untimed = [t for t in tpvs if "lat" in t and "time" not in t]
    assert untimed, "the recording should start with TPVs that have no time"
    assert all("time" in fix for fix in fixes) and len(fixes) == len({t["time"] for t in tpvs if is_fix(t)})
    return f"{len(untimed)} untimed TPVs with lat/lon skipped"


@quirk("2D fixes with no altitude, no error estimate (RMC only)", "meinberg-gps164")
def two_d_without_altitude(fixes, tpvs):
    assert fixes and all(fix["mode"] == 2 for fix in fixes)
    assert not any(key in fix for fix in fixes for key in ("altHAE", "altMSL", "eph", "epv")), \
        "unknown values are left out, never null"
    return f"{len(fixes)} 2D fixes, none with altitude or eph"


@quirk("no error estimate at all (TSIP timing receiver)", "trimble-smt-360")
def no_error_estimate(fixes, tpvs):
    assert fixes and not any("eph" in fix for fix in fixes)
    result = subprocess.run([LOCTRACK, "help", "stream"], capture_output=True, text=True, timeout=10)
    assert "--min-accuracy" in result.stdout
    return f"{len(fixes)} fixes without eph (so --min-accuracy drops them all)"


@quirk("DGPS status", "skytraq-dgps")
def dgps(fixes, tpvs):
    assert fixes and all(int(fix.get("status", 1)) == 2 for fix in fixes)
    return f"{len(fixes)} fixes with status 2"


@quirk("DGPS status mixed with plain fixes (SiRF binary)", "sirf2")
def dgps_mixed(fixes, tpvs):
    statuses = {int(fix.get("status", 1)) for fix in fixes}
    assert statuses == {1, 2}, statuses
    with_status = sum(1 for fix in fixes if "status" in fix)
    return f"{with_status} of {len(fixes)} fixes DGPS, the rest without status"


@quirk("5 Hz receiver: every 0.2 s epoch", "quectel-l76k-nmea")
def five_hertz(fixes, tpvs):
    fractions = {fix["time"][19:23] for fix in fixes}
    assert {".000", ".200", ".400", ".600", ".800"} <= fractions, fractions
    return f"{len(fixes)} fixes at {len(fractions)} sub-second phases"


@quirk("binary protocol's extra fields: ECEF and NED velocity", "navisys-gr701w")
def ecef(fixes, tpvs):
    with_ecef = [fix for fix in fixes if "ecefx" in fix]
    assert with_ecef and all(k in fix for fix in with_ecef for k in ("ecefy", "ecefz", "ecefpAcc", "ecefvAcc", "velN"))
    # libgps 3.22 swaps ecefpAcc/ecefvAcc and misfiles velN/E/D: the output must match gpsd's text anyway.
    last = {t["time"]: t for t in tpvs if is_fix(t)}
    assert all(fix["ecefpAcc"] == last[fix["time"]]["ecefpAcc"] and fix["velN"] == last[fix["time"]]["velN"]
               for fix in with_ecef)
    return f"{len(with_ecef)} fixes with ECEF, pAcc/vAcc and velN/E/D as gpsd sent them"


@quirk("week-rollover dates reported as gpsd reports them", "bu353s4")
def rollover_nmea(fixes, tpvs):
    assert all(fix["time"].startswith("2034-08-16") for fix in fixes), "recorded 2014-12-31, gpsd says 2034"
    return f"all dated 2034-08-16, as gpsd {GPSD} dates them"


@quirk("SiRF dates confused by gpsd's rollover logic, passed through", "sirf2")
def rollover_sirf(fixes, tpvs):
    # The real date is 2021. gpsd 3.22 dates the fixes 2041 (its rollover logic); gpsd 3.25
    # dates them 2021. Both date the TPVs before the first fix 2023.
    fix_year = {"3.22": "2041", "3.25": "2021"}.get(GPSD)
    tpv_years = {t["time"][:4] for t in tpvs if "time" in t}
    assert fix_year is None or tpv_years == {"2023", fix_year}, tpv_years
    last = {t["time"]: t for t in tpvs if is_fix(t)}
    years = {fix["time"][:4] for fix in fixes}
    assert all(fix["time"] in last for fix in fixes) and (fix_year is None or years == {fix_year}), years
    return f"gpsd {GPSD} dates its TPVs 2023 (no fix yet) and {'/'.join(sorted(years))}; the fixes carry gpsd's dates"


@quirk("loss of fix and reacquisition: no fix from mode < 2", "garmin-10x")
def loss_of_fix(fixes, tpvs):
    no_fix_times = {t["time"] for t in tpvs if int(t.get("mode", 0)) < 2 and "time" in t}
    assert no_fix_times and not (no_fix_times & set(times(fixes)))
    return f"{len(no_fix_times)} no-fix epochs, none printed"


def backwards_step() -> str:
    """Telit-style: the receiver's time steps back once. Replayed through the scripted gpsd."""
    lines = (LOGS / "trimble-smt-360.log.gpsd.jsonl").read_text().splitlines()
    tpv_indexes = [i for i, line in enumerate(lines) if '"class":"TPV"' in line]
    # Repeat the report of the 10th epoch's time after the 20th epoch: the clock steps back 10 s once.
    step_back = lines[tpv_indexes[10]].replace('"lat":', '"lat":', 1)
    lines.insert(tpv_indexes[20] + 1, step_back)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        handle.write("\n".join(lines) + "\n")
        path = handle.name
    try:
        with FakeGpsd.from_file(path) as server:
            result = subprocess.run([LOCTRACK, "stream", "--format", "json", "--no-reconnect",
                                     f"127.0.0.1:{server.port}"], capture_output=True, text=True, timeout=30)
        fixes = [json.loads(line) for line in result.stdout.splitlines()]
        expected = len({json.loads(line)["time"] for line in lines if '"class":"TPV"' in line
                        and is_fix(json.loads(line))})
        stamps = times(fixes)
        assert len(stamps) == len(set(stamps)) == expected, (len(stamps), len(set(stamps)), expected)
        return f"a 10 s step back after epoch 20: {len(fixes)} fixes, each epoch once"
    finally:
        os.unlink(path)


def long_device_path() -> str:
    """A /dev/serial/by-id path (over libgps's 80-byte gps_stream buffer) reaches gpsd intact."""
    device = "/dev/serial/by-id/usb-u-blox_AG_-_www.u-blox.com_u-blox_GNSS_receiver-if00-port0-" + "x" * 40
    with FakeGpsd.from_file(str(LOGS / "bu353s4.log.gpsd.jsonl")) as server:
        subprocess.run([LOCTRACK, "stream", "--format", "json", "--no-reconnect", f"127.0.0.1:{server.port}:{device}"],
                       capture_output=True, text=True, timeout=30)
        server.wait_idle(timeout=5)
        watches = [c for client in server.clients for c in client.commands if c.startswith("?WATCH=")]
    assert watches, "no ?WATCH received"
    sent = json.loads(watches[0][len("?WATCH="):])
    assert sent.get("device") == device, sent
    return f"?WATCH carried the {len(device)}-byte device path intact, as valid JSON"


def unknown_device() -> str:
    """gpsd's ERROR for a device it does not have is one clear line and exit 69 (with a real gpsd)."""
    port = free_port()
    release_port(port)  # gpsd binds without SO_REUSEADDR
    fake = spawn(["gpsfake", "-q", "-1", "-p", "-P", str(port), "-c", "0.2", str(LOGS / "bu353s4.log")],
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_port(port, 10), f"gpsfake's gpsd did not listen on port {port} within 10 s"
        deadline = time.monotonic() + 10  # gpsd knows its device only once gpsfake has added it
        while True:
            result = subprocess.run([LOCTRACK, "stream", "--format", "json", f"127.0.0.1:{port}:/dev/no-such-gps"],
                                    capture_output=True, text=True, timeout=30)
            if "No such device" in result.stderr or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 69 and len(lines) == 1 and "No such device" in lines[0], (result.returncode, lines)
        return "exit 69: " + lines[0]
    finally:
        kill_group(fake)


def main() -> int:
    failures = 0
    print("\nquirks of real receivers (loctrack's output and gpsd %s's TPVs of the same run in out/conformance/)" % GPSD)
    print("%-62s %-22s %-9s %s" % ("quirk", "recording", "way", "result"))
    for name, log, check in CHECKS:
        way = "gpsfake"
        try:
            detail = check(output(log), gpsd_sent(log))
            print("%-62s %-22s %-9s ok: %s" % (name, log, way, detail))
        except FileNotFoundError as error:
            failures += 1
            print("%-62s %-22s %-9s FAIL: no output (%s); run scripts/conformance.py first" % (name, log, way, error.filename))
        except AssertionError as error:
            failures += 1
            print("%-62s %-22s %-9s FAIL: %s" % (name, log, way, error))
    try:
        print("%-62s %-22s %-9s ok: %s" % ("a timestamp that steps backwards (Telit-style)", "trimble-smt-360 +step",
                                            "scripted", backwards_step()))
    except (AssertionError, subprocess.TimeoutExpired) as error:
        failures += 1
        print("%-62s %-22s %-9s FAIL: %s" % ("a timestamp that steps backwards", "trimble-smt-360", "scripted", error))
    for name, recording, check in (("a long /dev/serial/by-id device path", "bu353s4 (scripted)", long_device_path),
                                   ("a device gpsd does not have", "bu353s4 (gpsfake)", unknown_device)):
        try:
            print("%-62s %-22s %-9s ok: %s" % (name, recording, "", check()))
        except (AssertionError, subprocess.TimeoutExpired) as error:
            failures += 1
            print("%-62s %-22s %-9s FAIL: %s" % (name, recording, "", error))
    print("quirks: %s" % ("PASS" if failures == 0 else "%d FAILED" % failures))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
