"""What the test tools share (scripts/*.py, scripts/faults/, Benchmarks/run.py): Python 3 standard library only.

processes      children in sessions of their own, killed as a group, all ended at exit; loopback ports
procfs         what /proc says about processes: CPU time, memory, context switches, connections
scripted_gpsd  the scripted gpsd (FakeGpsd): conformance, quirks, the faults and their Python flood;
               scripts/fake_gpsd.py is its command line
gpsd_session   one client of the scripted gpsd: the banner, the replay, the answers to requests
fix_check      gpsd's epochs, loctrack's fixes checked against them (conformance)
flood_gpsd.c   the flood gpsd emulator, in C (the benchmark and the faults compile and run it)
"""
