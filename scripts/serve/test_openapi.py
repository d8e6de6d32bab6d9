"""Test 7: the server against its own OpenAPI description (web/openapi.json) with schemathesis
(PyPI, pinned in requirements.txt, run from .build-serve/venv). Without the file or the venv the
test fails, saying which is missing.

`serve --listen 127.0.0.1:PORT --token-file FILE --monitor openapi` over gpsfake's gpsd (the demo
drive, so /api/fix, /api/sky, /api/track and /api/regions have something to say). /openapi.json
must be web/openapi.json. Then `schemathesis run` with every check (server errors, status codes,
content types, response headers and schemas, negative data rejected, positive data accepted,
unsupported methods, Allow headers, ignored authentication), the token given as
`Authorization: Bearer`, every operation but the endless GET /events; it must pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

from support.gpsd_replay import Replay
from support.processes import kill_group, spawn
from support.results import Result
from support.serve_process import Serve
from support.waiting import wait_until

from . import venv
from .harness import DEMO_TRACK, ROOT, Settings, add_demo_regions, write_token_file

TITLE = "the OpenAPI file, tested with schemathesis"
EXPECTATION = "/openapi.json = web/openapi.json; schemathesis run --checks all passes"

OPENAPI = ROOT / "web" / "openapi.json"
MAX_EXAMPLES = 40
SEED = 20261124


def run(settings: Settings, r: Result) -> None:
    if not OPENAPI.exists():
        raise RuntimeError("%s is missing: the server's API has no description to test" % OPENAPI.relative_to(ROOT))
    if not venv.ready(settings.venv):
        raise RuntimeError("schemathesis's venv %s is not ready (make serve-deps makes it)" % settings.venv)
    workdir = settings.workdir("7-openapi")
    state = workdir / "state"
    if state.exists():
        shutil.rmtree(state)
    add_demo_regions(settings.loctrack, "openapi", state)
    token, token_file = write_token_file(workdir)
    replay = serve = None
    try:
        replay = Replay(workdir, DEMO_TRACK, cycle=0.02)
        serve = Serve(settings.loctrack, ["--token-file", str(token_file), "--monitor", "openapi", replay.source],
                      workdir, state_home=state)
        bearer = {"Authorization": "Bearer " + token}
        r.check(bool(wait_until(lambda: serve.get("/api/fix", bearer).status == 200, 30)),
                "a fix within 30 s (/api/fix 200), so the API has something to say")
        served = serve.get("/openapi.json", bearer)
        try:
            same = json.loads(served.body) == json.loads(OPENAPI.read_text())
        except ValueError:
            same = False
        r.check(served.status == 200 and "application/json" in (served.header("Content-Type") or "") and same,
                "/openapi.json is web/openapi.json, as application/json", served.summary())
        report = workdir / "junit.xml"
        command = [str(venv.schemathesis(settings.venv)), "run", str(OPENAPI), "--url", serve.url(""),
                   "--checks", "all", "--header", "Authorization: Bearer " + token, "--exclude-path", "/events",
                   "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED), "--request-timeout", "10",
                   "--phases", "examples,coverage,fuzzing", "--workers", "1", "--no-color",
                   "--generation-database", "none", "--report", "junit", "--report-junit-path", str(report)]
        log = workdir / "schemathesis.log"
        started = time.monotonic()
        with open(log, "wb") as out:
            process = spawn(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            env=dict(os.environ, NO_COLOR="1"), cwd=str(workdir))
            try:
                code = process.wait(timeout=180)
            except subprocess.TimeoutExpired:
                kill_group(process)
                code = None
        text = log.read_text(errors="replace").replace(token, "TOKEN")
        log.write_text(text)
        lines = text.splitlines()
        cases = ""
        for index, line in enumerate(lines[:-1]):
            if line.startswith("Test cases:"):
                cases = lines[index + 1].strip()  # "33 generated, 3 found 5 unique failures, 6 skipped"
        failures = [line.strip() for line in lines if line.strip().startswith("❌ ST")]  # one per kind of failure
        r.figure = "schemathesis %s: %s (%.0f s)" % (venv.SCHEMATHESIS_VERSION, cases or "no summary",
                                                    time.monotonic() - started)
        r.check(code == 0, "schemathesis run --checks all: no failure (log: %s)" % log,
                "exit %s; %s" % (code, failures or lines[-3:]))
        r.check(serve.running() and serve.get("/api/status", bearer).status == 200, "the server still answers")
    finally:
        if serve is not None:
            serve.stop()
        if replay is not None:
            replay.stop()
