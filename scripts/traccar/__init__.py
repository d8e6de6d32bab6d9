"""traccar: loctrack's Traccar uplink (`stream --publish http://HOST:PORT/?id=DEVICE --spool DIR`)
tested end to end (`make traccar-test`; `make traccar-standin-test` runs the self-test alone).

Traccar needs Java 21 and is in neither Debian 12 nor PyPI, so the server is a stand-in for its
OsmAnd port, written from the rules of Traccar's OsmAndProtocolDecoder, FilterHandler and
DistanceHandler (../shared/docs/traccar-facts.md): scripts/support/traccar_standin.py, with the
decoder itself in scripts/support/osmand_decoder.py. Before anything is tested against it, it is
checked against the decoder's own test vectors and its rules (selftest.py, unittest, about 2 s).
Everything else is real processes: gpsd fed by gpsfake (demo/track.nmea, 285 fixes, after a lead-in
so that every client watches before the first fix), gpspipe as the witness of what gpsd reported,
the flood emulator (scripts/support/flood_gpsd.c) for the backlog, the stand-in as a process of its
own driven through its control port, and the uplink under test.

  python3 scripts/traccar [test] [--loctrack PATH] [--only 1,3] [--out DIR] [--cycle S]
                          [--no-selftest]
  python3 scripts/traccar selftest

The tests (each with its own stand-in, gpsd and uplink):
  1 every fix once, in order, in Traccar's units: each fix gpsd reported stored exactly once, oldest
    first, on one keep-alive connection; timestamp in milliseconds equal to gpsd's fix time; lat and
    lon gpsd's numbers to the last digit; speed gpsd's m/s x 1.943844 (knots); the odometer (metres,
    never decreasing) and motion (true/false) attributes on every position; exit 0 on SIGTERM
  2 an outage: 503s for 2 s, 2 closes without a reply, 2 positions stored whose reply is lost, then
    503s while gpsd reports the rest of the drive; the uplink SIGKILLed inside it and restarted on
    the same spool; then the server answers: every fix stored, oldest first, a time repeated only
    where its reply was lost; back within the 5 s backoff cap
  3 an unknown id: 400 for the first request, one stderr line naming the device and the 400, the
    next request (the probe) 20-45 s later and none in between; the device is added 25 s after the
    400: the first request after that answered 200, every fix stored, oldest first
  4 a backlog: 10,000 fixes from the flood emulator while the server's port refuses connections;
    the stand-in starts: all 10,000 stored once, oldest first, on one connection, within 30 s
  5 bad URLs (no id, an empty id, another scheme, no host, a port out of range): each exits 64 with
    one line on stderr, and gpsd is never connected to
  6 https:// with --cafile: the stand-in behind TLS with a certificate from a CA of the test's own
    (support/tls_certificates.py, the openssl command): with --cafile, 100 fixes from the flood
    emulator stored in order; without it, a failure reported and nothing stored (no unverified fallback)
A loctrack whose `stream --help` does not mention http:// fails every test. About 2 minutes in
all on 2 cores.

Modules: harness (settings, the uplink process, replay and witness, the checks), selftest, the tests
(test_units 1, test_outage 2, test_unknown 3, test_backlog 4, test_bad_urls 5, test_https 6), cli. Shared with
the other tools, in scripts/support: processes, procfs, results, suite, waiting, gpsd_replay,
flood_emulator, and, written for these tests and the bench: osmand_decoder, traccar_standin,
tls_certificates.
Artifacts (each process's output, the stand-in's journal of stored positions, gpspipe's capture)
in out/traccar/.
"""
