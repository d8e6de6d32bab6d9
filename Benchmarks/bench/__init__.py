"""loctrack's benchmark, split by concern; Benchmarks/run.py is the entry point.

  findings   correctness problems (run.py exits 1), timing notes, progress lines
  measure    /proc readings (threads, memory), one measured run of a client, statistics
  clients    the clients compared and how each is started and read
  flood      flood-tpv, flood-sky and the long flood (scripts/support/flood_gpsd.c)
  steady     paced 1 Hz / 10 Hz runs, latency and the idle watch
  live_gpsd  a real gpsd on a pseudo-terminal fed 1 Hz NMEA
  once       `once` on a warm and on a cold gpsd
  geofences  deterministic polygons around the flood's track
  monitor    `monitor run` with 10,000 polygons against `stream` on the floods
  serve      `loctrack serve`: event streams, a day's track in the browser
  tiles      `loctrack serve --tiles-file` against nginx, by wrk (nginx.py, wrk.py, tile_paths.lua)
  trips      `loctrack trips` on a day of JSON lines and a long GPX against gpxpy and a json.loads loop
  drive      the trips part's fixed-seed drive, written as JSON lines and as GPX
  report     the markdown table

Child processes, ports and the mosquitto broker are the test tools' (scripts/support/processes.py,
mqtt_broker.py); broker.py here is the subscriber that counts what arrived.
"""
