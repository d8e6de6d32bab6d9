"""What the test tools share (scripts/*.py, scripts/faults/, scripts/ha/, scripts/serve/, scripts/traccar/, Benchmarks/run.py): Python 3 standard library only.

processes      children in sessions of their own, killed as a group, all ended at exit (or on SIGTERM/SIGINT),
               wait4 with a timeout; loopback ports (the test tools and the bench)
procfs         what /proc says about processes: CPU time, memory, context switches, connections; who listens
scripted_gpsd  the scripted gpsd (FakeGpsd) of the Python tools: quirks, the faults, serve's load test
gpsd_session   one client of the scripted gpsd: the banner, the replay, the answers to requests
fix_check      gpsd's epochs, loctrack's fixes checked against them (conformance)
flood_gpsd.c   the flood gpsd emulator, in C, the one flood generator (the benchmark and the faults run it)
flood_emulator flood_gpsd as a process: started on a free port, which it prints (the bench, scripts/traccar)
gpsd_replay    gpsfake + a real gpsd replaying a recording; gpspipe as the witness of what it sent;
               nmea(), the one NMEA sentence writer of the Python tools (the bench, demo/make-track.py)
osmand_decoder Traccar's OsmAnd decoder rules as a pure function, filter.future, its naive distance
traccar_standin  a stand-in for Traccar's OsmAnd port over HTTP/1.1, faults and devices set through a
               control port; as a process (StandinProcess) for scripts/traccar and the bench
mqtt_broker    a mosquitto of the test's own, its subscribers and publishers (scripts/ha, the bench)
serve_process  `loctrack serve` as a process: started, listening, its CPU and memory (scripts/serve, the bench)
http_raw       HTTP/1.1 over a plain socket, the bytes written as they are (malformed requests included)
sse_clients    event-stream clients, many read by one thread; stalled ones that never read
tcp_relay      a loopback TCP relay that can cut every connection (a network that goes away)
mbtiles        MBTiles files whose tiles encode their own z/x/y, big ones, mbutil's layout, WAL, bad ones
               (scripts/serve's chart tests, the bench's tiles part)
png            PNG written and read by hand: the tiles, and a pixel of a browser's screenshot
suite          a suite's tests run one after another, the tally (scripts/ha, scripts/serve, scripts/traccar)
spool          loctrack's spool folder read from outside: its records, what is unacknowledged (traccar, the bench)
waiting        wait_until: a condition polled until a deadline
pinned_venv    a venv made from a lock of pinned packages, remade when the lock changes (ha, serve)
"""
