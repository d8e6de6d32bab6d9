"""ha: loctrack's Home Assistant features tested against a real Home Assistant core
(`make ha-test`; `make ha-deps` makes only the venv).

Home Assistant 2024.3.3 runs from its own virtual environment (.build-ha/venv, made by venv.py
from the lock requirements.txt), with a mosquitto of the test's own and a real gpsd fed by
gpsfake from demo/track.nmea; loctrack publishes with --ha-discovery (or, test 6, in the
OwnTracks format) and the tests read what Home Assistant made of it through its REST and
WebSocket APIs: the entity and device registries, states, state changes as they happen.

  python3 scripts/ha [test] [--loctrack PATH] [--only 1,3] [--out DIR] [--venv DIR]
  python3 scripts/ha deps      the venv only
  python3 scripts/ha lock      re-resolve requirements.txt (a new Home Assistant, new integrations)

The tests: 1 the harness itself (hand-made discovery messages; needs no loctrack), 2 stream with
--ha-discovery --odometer over the demo drive (the odometer and moving entities too), 3 loctrack killed and restarted, 4 Home Assistant
restarted, 5 monitor run with --ha-discovery through the regions, 6 the OwnTracks route, 7 bad
--ha-* input (exit 64). None is ever skipped: a loctrack without its Home Assistant side fails 2-7.

Modules: venv (the environment), instance (one Home Assistant: config folder, start, stop),
api (REST and WebSocket clients), world (a test's broker + Home Assistant), contract (what
loctrack promises, as data), replay (gpsfake and loctrack processes), the tests (test_selftest 1,
test_stream 2, test_kill 3, test_ha_restart 4, test_monitor 5, test_owntracks 6,
test_bad_input 7), cli.
Shared with the other tools, in scripts/support: processes, mqtt_broker, results, gpsd_replay,
suite, waiting, pinned_venv.
Python's standard library only, outside the venv. Artifacts (logs, each loctrack's output,
Home Assistant's config folder and log) in out/ha/.
"""
