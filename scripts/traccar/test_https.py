"""Test 6: https:// with --cafile: the server's certificate, signed by a CA of the test's own, is
verified against that CA; without --cafile the system's store does not know it and nothing is sent."""

from __future__ import annotations

import shutil

from support import flood_emulator, tls_certificates
from support.processes import terminate
from support.traccar_standin import StandinProcess
from support.waiting import wait_until

from .harness import Uplink, order_problem, wait_stored

TITLE = "https:// with --cafile, and no position without it"
EXPECTATION = ("with --cafile naming the CA that signed the stand-in's certificate, 100 fixes stored in order; "
               "without it (the system's CAs), a failure reported and nothing stored: no unverified fallback")
NEEDS_FLOOD = True
TRUSTING, STRANGER = "lt-e2e-tls", "lt-e2e-tls-no-ca"
FIXES = 100


def run(settings, r) -> None:
    if not shutil.which(tls_certificates.OPENSSL):
        raise RuntimeError("no openssl command to make the test's certificates with (make traccar-deps)")
    workdir = settings.workdir("6-https")
    made = tls_certificates.make(workdir / "tls")
    standin = StandinProcess(workdir, devices=[TRUSTING, STRANGER], certificate=(made.certificate, made.key))
    trusting_gpsd, trusting_port = flood_emulator.start(settings.flood, ["-n", FIXES, "-t", "-C", 1, "-l", 600])
    stranger_gpsd, stranger_port = flood_emulator.start(settings.flood, ["-n", FIXES, "-t", "-C", 1, "-l", 600])
    trusting = Uplink(settings, standin.url(TRUSTING), workdir / "spool-ca", "127.0.0.1:%d" % trusting_port, workdir,
                      "uplink-cafile", extra=["--cafile", str(made.ca)])
    stranger = Uplink(settings, standin.url(STRANGER), workdir / "spool-no-ca", "127.0.0.1:%d" % stranger_port,
                      workdir, "uplink-no-cafile")
    positions = [p for p in wait_stored(standin, FIXES, 30) if p["device"] == TRUSTING]
    # Nothing stored from the uplink without the CA once it has tried and failed: it says so on stderr.
    refused = wait_until(lambda: stranger.stderr_lines() or stranger.process.poll() is not None, 30, 0.1)
    untrusted = [p for p in standin.positions() if p["device"] == STRANGER]
    stranger_code = stranger.process.poll()
    code = trusting.terminate()
    stranger.terminate(5)
    r.check(len(positions) == FIXES and order_problem(positions) is None,
            "with --cafile: every fix stored, in order", "%d of %d stored" % (len(positions), FIXES))
    r.check(bool(refused) and not untrusted, "without --cafile: a failure reported, nothing stored (the certificate "
            "is not trusted)", "%s; %d stored from %s" % ("reported" if refused else "nothing reported within 30 s",
                                                          len(untrusted), STRANGER))
    r.check(code == 0, "the uplink with --cafile exits 0 on SIGTERM", "exit %s" % code)
    said = stranger.stderr_lines()
    r.note("without --cafile: %s; stderr: %s" % (
        "exited %s" % stranger_code if stranger_code is not None else "still running", " | ".join(said)[:300] or "nothing"))
    r.figure = "%d positions over TLS, %d from the uplink without the CA" % (len(positions), len(untrusted))
    standin.stop()
    terminate(trusting_gpsd, 2)
    terminate(stranger_gpsd, 2)
