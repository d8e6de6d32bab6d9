"""faults: loctrack's fault-injection suite (`make faults`, `make faults-long`).

Each fault of docs/faults.md is injected into a real `loctrack` process, from a
scripted gpsd (scripts/support/scripted_gpsd.py, in this process), a real gpsd fed by
gpsfake, or the flood emulator (scripts/support/flood_gpsd.c), and the
behaviour the docs promise is asserted. Every fault prints PASS or FAIL with
its sub-checks and a measured figure; a table at the end sums up, and the exit
status is 1 if anything failed (an exception in a test counts as a failure and
its traceback goes to out/faults/N.traceback), 2 if the suite cannot start.

  python3 scripts/faults [--loctrack PATH] [--flood PATH] [--only 1,4,10]
                         [--long] [--jobs N] [--out DIR] [--stall S] [--stall-gpsd S]

(or `python3 -m faults` with scripts/ on PYTHONPATH). Faults 1-4 and 8-11 are
the default run (about 3 minutes on 2 cores: the slow ones run side by side, the
timing-sensitive ones and 11, 1,200 SIGKILLs of a recording loctrack, alone); 12 (a million fixes from the flood emulator, then
300,000 paced, about 50 s) runs with --long or --only 12. The issue's
minute-long stall of stdout's reader is shortened to 20 s against the flood
emulator (--stall) and 40 s against a real gpsd (--stall-gpsd). Figures are
wall-clock and /proc based: CPU time is utime+stime from /proc/PID/stat, memory
VmHWM/VmRSS from /proc/PID/status.

The faults, a module per family: gpsd_missing (1, 2), not_gpsd (3), framing
(4), device (8), stdout (9), signals (10), recording (11), long_run (12); faults 5-7 (bursts,
overlong and malformed lines) need no process and are Swift tests now
(Tests/LocTrackTests/Unit/ReaderTests.swift); what they share:
harness, loctrack, reports, flood, and tracks (what a track file must hold); the command line: cli. Python 3 standard library only. Artifacts
(each loctrack's stdout/stderr) go to out/faults/.
"""
