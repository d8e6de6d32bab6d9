"""The stand-in checked before anything is tested against it (`python3 scripts/traccar selftest`,
`make traccar-standin-test`; also the first thing `make traccar-test` runs): the decoder's own
test vectors from Traccar's OsmAndProtocolDecoderTest (Apache-2.0, quoted in
../shared/docs/traccar-facts.md), each decoded to the position the rules give; the rules one by
one; then the server over real loopback sockets (keep-alive, replies, closes without a reply,
faults) and the stand-in as a process driven through its control port. About a second."""

from __future__ import annotations

import calendar
import http.client
import math
import shutil
import socket
import ssl
import tempfile
import time
import unittest
from pathlib import Path

from support import osmand_decoder as decoder, tls_certificates
from support.osmand_decoder import BAD_REQUEST, CLOSE, DISABLED, JSON, KNOWN, POSITION, UNKNOWN, Request
from support.traccar_standin import RunningStandin, Standin, StandinProcess

NOW_MS = 1_790_000_000_000  # the server's clock in these tests: 2026-09-21T14:13:20Z


def utc_ms(year, month, day, hour, minute, second) -> int:
    return calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) * 1000


def every_id_known(_device: str) -> str:
    """The decoder test's injected device manager: every id is a device."""
    return KNOWN


def decode(target: str, devices=every_id_known, last_known=lambda device: None, **options) -> decoder.Decoded:
    return decoder.decode(Request("GET", target), devices, NOW_MS, last_known, **options)


class DecoderTestVectors(unittest.TestCase):
    """OsmAndProtocolDecoderTest.testDecodeQuery, each vector with the position it must give."""

    def assert_position(self, target: str, device: str, time_ms: int, latitude: float, longitude: float,
                        speed: float = 0.0, course: float = 0.0, altitude: float = 0.0, attributes=None,
                        time_from_server: bool = False) -> None:
        found = decode(target)
        self.assertEqual(found.outcome, POSITION, found.reason)
        position = found.position
        self.assertEqual(position.device, device)
        self.assertEqual(position.time_ms, time_ms)
        self.assertEqual(position.time_from_server, time_from_server)
        self.assertEqual((position.latitude, position.longitude), (latitude, longitude))
        self.assertEqual(position.speed, speed)
        self.assertEqual(position.course, course)
        self.assertEqual(position.altitude, altitude)
        self.assertEqual(position.attributes, attributes or {})
        self.assertTrue(position.valid)
        self.assertFalse(position.outdated)

    def test_given_an_iso_timestamp_with_z_when_decoded_then_that_utc_moment(self):
        self.assert_position("/?id=902064&lat=42.06288&lon=-88.23412&timestamp=2016-01-27T18%3A55%3A47Z"
                             "&hdop=6.0&altitude=224.0&speed=0.0", "902064", utc_ms(2016, 1, 27, 18, 55, 47),
                             42.06288, -88.23412, altitude=224.0, attributes={"hdop": 6.0})

    def test_given_a_timestamp_above_2_to_the_31_when_decoded_then_milliseconds(self):
        self.assert_position("/?id=902064&lat=42.06288&lon=-88.23412&timestamp=1442068686579&hdop=6.0"
                             "&altitude=224.0&speed=0.0", "902064", 1442068686579, 42.06288, -88.23412,
                             altitude=224.0, attributes={"hdop": 6.0})

    def test_given_a_plain_date_with_plus_for_space_and_the_id_last_when_decoded_then_server_zone_time(self):
        self.assert_position("/?lat=49.60688&lon=6.15788&timestamp=2014-06-04+09%3A10%3A11&altitude=384.7"
                             "&speed=0.0&id=353861053849681", "353861053849681", utc_ms(2014, 6, 4, 9, 10, 11),
                             49.60688, 6.15788, altitude=384.7)

    def test_given_a_timestamp_below_2_to_the_31_when_decoded_then_seconds(self):
        self.assert_position("/?id=123456&timestamp=1377177267&lat=60.0&lon=30.0&speed=0.0&bearing=0.0"
                             "&altitude=0&hdop=0.0", "123456", 1377177267000, 60.0, 30.0, attributes={"hdop": 0.0})

    def test_given_only_id_time_and_coordinates_when_decoded_then_a_position(self):
        self.assert_position("/?id=123456&timestamp=1377177267&lat=60.0&lon=30.0", "123456", 1377177267000, 60.0,
                             30.0)

    def test_given_deviceid_heading_and_no_timestamp_when_decoded_then_server_clock_and_attributes(self):
        self.assert_position("/?lat=60.0&lon=30.0&speed=0.0&heading=0.0&vacc=0&hacc=0&altitude=0&deviceid=123456",
                             "123456", NOW_MS, 60.0, 30.0, attributes={"vacc": 0.0, "hacc": 0.0},
                             time_from_server=True)

    def test_given_batt_when_decoded_then_battery_level(self):
        self.assert_position("/?id=861001000719969&lat=41.666667&lon=-0.883333&altitude=350.059479"
                             "&speed=0.000000&batt=87", "861001000719969", NOW_MS, 41.666667, -0.883333,
                             altitude=350.059479, attributes={"batteryLevel": 87.0}, time_from_server=True)

    def test_given_location_when_decoded_then_its_latitude_and_longitude(self):
        self.assert_position("/?id=123456&timestamp=1377177267&location=60.0,30.0", "123456", 1377177267000, 60.0,
                             30.0)

    def test_given_speed_and_other_keys_when_decoded_then_knots_and_typed_attributes(self):
        self.assert_position("/?id=123456789012345&timestamp=1504763810&lat=40.7232948571&lon=-74.0061408571"
                             "&bearing=7.19889788244&speed=40&ignition=true&rpm=933&fuel=24", "123456789012345",
                             1504763810000, 40.7232948571, -74.0061408571, speed=40.0, course=7.19889788244,
                             attributes={"ignition": True, "rpm": 933.0, "fuel": 24.0})

    def test_given_no_id_when_decoded_then_nothing_and_400(self):
        found = decode("/?timestamp=1377177267&lat=60.0&lon=30.0")
        self.assertEqual((found.outcome, found.position), (BAD_REQUEST, None))

    def test_given_cells_and_wifi_without_coordinates_when_decoded_then_the_last_known_position(self):
        target = ("/?id=123456&timestamp=1377177267&cell=257,02,16,2224&cell=257,02,16,2223,-90"
                  "&wifi=00-14-22-01-23-45,-80&wifi=00-1C-B3-09-85-15,-70")
        first = decode(target).position
        self.assertEqual((first.latitude, first.longitude, first.outdated), (0.0, 0.0, True))
        self.assertEqual(first.cells, [(257, 2, 16, 2224), (257, 2, 16, 2223, -90)])
        self.assertEqual(first.wifis, [("00:14:22:01:23:45", -80), ("00:1C:B3:09:85:15", -70)])
        known = decode(target, last_known=lambda device: (60.0, 30.0) if device == "123456" else None).position
        self.assertEqual((known.latitude, known.longitude, known.outdated, known.time_ms),
                         (60.0, 30.0, True, 1377177267000))


class DecoderRules(unittest.TestCase):
    """The rules of traccar-facts.md that the test vectors do not reach."""

    def test_given_an_unknown_id_when_decoded_then_400(self):
        found = decode("/?id=nobody&lat=1&lon=2", devices=lambda device: UNKNOWN)
        self.assertEqual((found.outcome, found.device), (BAD_REQUEST, "nobody"))

    def test_given_a_disabled_id_when_decoded_then_closed_without_reply(self):
        self.assertEqual(decode("/?id=off&lat=1&lon=2", devices=lambda device: DISABLED).outcome, CLOSE)

    def test_given_coordinates_out_of_range_or_not_numbers_when_decoded_then_closed_without_reply(self):
        for target in ("/?id=a&lat=90.0001&lon=0", "/?id=a&lat=1&lon=-180.5", "/?id=a&lat=abc&lon=1",
                       "/?id=a&lat=1&lon=", "/?id=a&lat=Infinity&lon=1", "/?id=a&location=1",
                       "/?id=a&lat=1&lon=2&speed=fast", "/?id=a&lat=1&lon=2&timestamp=yesterday"):
            with self.subTest(target=target):
                self.assertEqual(decode(target).outcome, CLOSE)

    def test_given_nan_coordinates_when_decoded_then_stored_and_flagged(self):
        found = decode("/?id=a&lat=NaN&lon=1&timestamp=1377177267")
        self.assertEqual(found.outcome, POSITION)
        self.assertTrue(found.position.nan)
        self.assertTrue(math.isnan(found.position.latitude))

    def test_given_both_zero_coordinates_when_decoded_then_stored_as_zero_not_last_known(self):
        found = decode("/?id=a&lat=0&lon=0&timestamp=1377177267", last_known=lambda device: (5.0, 6.0))
        self.assertEqual((found.position.latitude, found.position.longitude, found.position.outdated),
                         (0.0, 0.0, False))

    def test_given_timestamps_around_integer_max_when_decoded_then_seconds_below_milliseconds_from(self):
        self.assertEqual(decode("/?id=a&lat=1&lon=2&timestamp=2147483646").position.time_ms, 2147483646000)
        self.assertEqual(decode("/?id=a&lat=1&lon=2&timestamp=2147483647").position.time_ms, 2147483647)
        self.assertEqual(decode("/?id=a&lat=1&lon=2&timestamp=1790000000123").position.time_ms, 1790000000123)

    def test_given_an_iso_timestamp_with_milliseconds_and_offset_when_decoded_then_that_moment(self):
        found = decode("/?id=a&lat=1&lon=2&timestamp=2026-03-15T12%3A00%3A00.250%2B01%3A00")
        self.assertEqual(found.position.time_ms, utc_ms(2026, 3, 15, 11, 0, 0) + 250)

    def test_given_a_bad_number_before_an_unknown_id_when_decoded_then_closed_first(self):
        unknown = lambda device: UNKNOWN  # noqa: E731
        self.assertEqual(decode("/?lat=x&id=nobody", devices=unknown).outcome, CLOSE)
        self.assertEqual(decode("/?id=nobody&lat=x", devices=unknown).outcome, BAD_REQUEST)

    def test_given_a_form_body_and_no_query_when_decoded_then_the_body(self):
        body = b"id=a&timestamp=1377177267&lat=1.5&lon=2.5"
        found = decoder.decode(Request("POST", "/", body, "application/x-www-form-urlencoded"), every_id_known, NOW_MS)
        self.assertEqual((found.outcome, found.position.latitude), (POSITION, 1.5))
        text_typed = decoder.decode(Request("POST", "/", body, "text/plain"), every_id_known, NOW_MS)
        self.assertEqual(text_typed.outcome, POSITION)
        self.assertEqual(decoder.decode(Request("POST", "/", body, "application/json; charset=utf-8"), every_id_known,
                                        NOW_MS).outcome, JSON)

    def test_given_speed_when_decoded_then_knots_unless_osmand_speed_says_otherwise(self):
        self.assertEqual(decode("/?id=a&lat=1&lon=2&speed=10").position.speed, 10.0)
        self.assertAlmostEqual(decode("/?id=a&lat=1&lon=2&speed=1.852", speed_unit="kmh").position.speed, 1.0)
        self.assertAlmostEqual(decode("/?id=a&lat=1&lon=2&speed=1", speed_unit="mps").position.speed, 1.943844)

    def test_given_other_keys_when_decoded_then_double_boolean_or_text(self):
        found = decode("/?id=a&lat=1&lon=2&odometer=1234.5&motion=false&status=DGPS&sat=9&device=%2Fdev%2FttyACM0"
                       "&valid=true&accuracy=3.5&batt=50&charge=true")
        self.assertEqual(found.position.attributes, {"odometer": 1234.5, "motion": False, "status": "DGPS",
                                                     "sat": 9.0, "device": "/dev/ttyACM0", "batteryLevel": 50.0,
                                                     "charge": True})
        self.assertEqual(found.position.accuracy, 3.5)

    def test_given_valid_false_or_0_when_decoded_then_invalid(self):
        self.assertFalse(decode("/?id=a&lat=1&lon=2&valid=false").position.valid)
        self.assertFalse(decode("/?id=a&lat=1&lon=2&valid=0").position.valid)
        self.assertTrue(decode("/?id=a&lat=1&lon=2&valid=1").position.valid)

    def test_given_a_fix_more_than_a_day_ahead_when_filtered_then_dropped(self):
        ahead = decode("/?id=a&lat=1&lon=2&timestamp=%d" % (NOW_MS + 86_400_001)).position
        within = decode("/?id=a&lat=1&lon=2&timestamp=%d" % (NOW_MS + 86_400_000)).position
        self.assertTrue(decoder.beyond_future(ahead, NOW_MS))
        self.assertFalse(decoder.beyond_future(within, NOW_MS))
        self.assertFalse(decoder.beyond_future(ahead, NOW_MS, limit_s=0))

    def test_given_a_parked_wander_when_summed_naively_then_distance_grows(self):
        distance = decoder.NaiveDistance()
        for step in range(10):  # 1e-5 degrees of latitude back and forth: about 1.11 m each
            position = decode("/?id=a&lat=%r&lon=2&timestamp=%d" % (1 + (step % 2) * 1e-5, 1377177267 + step)).position
            distance.add(position)
        self.assertAlmostEqual(position.attributes["totalDistance"], 9 * 1.113, delta=0.01)
        filtered = decoder.NaiveDistance(coordinates_filter=True, min_error=5)
        for step in range(10):
            position = decode("/?id=a&lat=%r&lon=2&timestamp=%d" % (1 + (step % 2) * 1e-5, 1377177267 + step)).position
            filtered.add(position)
        self.assertEqual(position.attributes["totalDistance"], 0.0)


class Connection:
    """One keep-alive client connection (http.client), counting what the server closed."""

    def __init__(self, port: int):
        self.client = http.client.HTTPConnection("127.0.0.1", port, timeout=5)

    def get(self, target: str, method: str = "GET", body=None, headers=None):
        """(status, body), or None when the server closed the connection without a reply."""
        try:
            self.client.request(method, target, body=body, headers=headers or {})
            response = self.client.getresponse()
            return response.status, response.read()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            self.client.close()
            return None

    def close(self):
        self.client.close()


class ServerOverSockets(unittest.TestCase):
    """The stand-in in this process, spoken to over loopback sockets."""

    def setUp(self):
        self.standin = Standin(devices=["dev1"])
        self.running = RunningStandin(self.standin)
        self.connection = Connection(self.running.port)

    def tearDown(self):
        self.connection.close()
        self.running.stop()

    def test_given_three_fixes_on_one_connection_when_sent_then_200s_and_one_connection(self):
        for second in range(3):
            self.assertEqual(self.connection.get("/?id=dev1&timestamp=%d&lat=1&lon=2" % (1377177267 + second)),
                             (200, b""))
        positions = self.standin.positions_since(0)["positions"]
        self.assertEqual([p["time_ms"] for p in positions], [1377177267000, 1377177268000, 1377177269000])
        self.assertEqual({p["connection"] for p in positions}, {1})

    def test_given_a_reply_when_read_raw_then_it_has_a_content_length_and_keeps_the_connection(self):
        with socket.create_connection(("127.0.0.1", self.running.port), timeout=5) as raw:
            raw.sendall(b"GET /?id=dev1&lat=1&lon=2 HTTP/1.1\r\nHost: x\r\n\r\nGET /?id=nobody&lat=1&lon=2 HTTP/1.1\r\n"
                        b"Host: x\r\n\r\n")
            received = b""
            while received.count(b"\r\n\r\n") < 2:
                chunk = raw.recv(4096)
                if not chunk:
                    break
                received += chunk
        self.assertEqual(received, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
                                   b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    def test_given_an_unknown_then_a_known_id_when_sent_then_400_and_the_connection_stays(self):
        self.assertEqual(self.connection.get("/?id=nobody&lat=1&lon=2")[0], 400)
        self.assertEqual(self.connection.get("/?id=dev1&lat=1&lon=2")[0], 200)
        self.assertEqual(self.standin.stats()["connections"], 1)

    def test_given_a_disabled_device_when_sent_then_closed_without_reply(self):
        self.standin.set_device("dev1", DISABLED)
        self.assertIsNone(self.connection.get("/?id=dev1&lat=1&lon=2"))
        self.standin.set_device("dev1", KNOWN)
        self.assertEqual(self.connection.get("/?id=dev1&lat=1&lon=2")[0], 200)
        self.assertEqual(self.standin.stats()["connections"], 2)

    def test_given_any_method_and_a_form_body_when_sent_then_decoded(self):
        self.assertEqual(self.connection.get("/", "POST", b"id=dev1&lat=3&lon=4",
                                             {"Content-Type": "application/x-www-form-urlencoded"})[0], 200)
        self.assertEqual(self.connection.get("/?id=dev1&lat=5&lon=6", "PUT")[0], 200)
        self.assertEqual([(p["latitude"], p["longitude"]) for p in self.standin.positions_since(0)["positions"]],
                         [(3.0, 4.0), (5.0, 6.0)])

    def test_given_503_faults_for_two_requests_when_sent_then_two_503_then_200(self):
        self.standin.set_fault({"status": 503, "count": 2})
        statuses = [self.connection.get("/?id=dev1&lat=1&lon=2")[0] for _ in range(3)]
        self.assertEqual(statuses, [503, 503, 200])
        self.assertEqual(self.standin.stats()["positions"], 1)

    def test_given_a_close_fault_when_sent_then_no_reply_and_nothing_stored(self):
        self.standin.set_fault({"close": 1})
        self.assertIsNone(self.connection.get("/?id=dev1&lat=1&lon=2"))
        self.assertEqual(self.connection.get("/?id=dev1&lat=1&lon=2")[0], 200)
        self.assertEqual(self.standin.stats()["counts"], {"fault-close": 1, "position": 1})

    def test_given_a_dropped_reply_when_sent_then_stored_but_closed_without_reply(self):
        self.standin.set_fault({"drop_reply": 1})
        self.assertIsNone(self.connection.get("/?id=dev1&lat=1&lon=2&timestamp=1377177267"))
        self.assertEqual(self.connection.get("/?id=dev1&lat=1&lon=2&timestamp=1377177267")[0], 200)
        self.assertEqual([p["time_ms"] for p in self.standin.positions_since(0)["positions"]],
                         [1377177267000, 1377177267000])
        self.assertEqual(self.standin.stats()["counts"], {"position-reply-dropped": 1, "position": 2})

    def test_given_503_for_a_time_when_it_passes_then_200(self):
        self.standin.set_fault({"status": 503, "seconds": 0.3})
        self.assertEqual(self.connection.get("/?id=dev1&lat=1&lon=2")[0], 503)
        deadline = time.monotonic() + 5
        while self.connection.get("/?id=dev1&lat=1&lon=2")[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertLess(time.monotonic(), deadline)

    def test_given_a_fix_two_days_ahead_when_sent_then_200_and_not_stored(self):
        ahead = int(time.time() * 1000) + 2 * 86_400_000
        self.assertEqual(self.connection.get("/?id=dev1&lat=1&lon=2&timestamp=%d" % ahead)[0], 200)
        stats = self.standin.stats()
        self.assertEqual((stats["positions"], stats["dropped_future"]), (0, 1))


class ServerOverTLS(unittest.TestCase):
    """The OsmAnd port behind TLS (what a reverse proxy in front of Traccar gives): a client that trusts
    the CA is answered; one that does not is refused in the handshake and nothing is stored. Without
    the openssl command it fails (never skipped)."""

    def setUp(self):
        if not shutil.which("openssl"):
            self.fail("no openssl command to make the certificates with (make traccar-deps installs it)")

    def test_given_a_certificate_when_a_client_trusts_its_ca_then_answered_and_otherwise_refused(self):
        with tempfile.TemporaryDirectory(prefix="standin-tls-") as folder:
            made = tls_certificates.make(Path(folder))
            standin = Standin(devices=["dev1"])
            running = RunningStandin(standin, certificate=(str(made.certificate), str(made.key)))
            try:
                trusting = ssl.create_default_context(cafile=str(made.ca))
                client = http.client.HTTPSConnection("127.0.0.1", running.port, timeout=5, context=trusting)
                client.request("GET", "/?id=dev1&lat=1&lon=2")
                self.assertEqual(client.getresponse().status, 200)
                client.close()
                stranger = http.client.HTTPSConnection("127.0.0.1", running.port, timeout=5,
                                                       context=ssl.create_default_context())
                with self.assertRaises(ssl.SSLCertVerificationError):
                    stranger.request("GET", "/?id=dev1&lat=3&lon=4")
                stranger.close()
                self.assertEqual(standin.stats()["positions"], 1)
            finally:
                running.stop()


class StandinAsAProcess(unittest.TestCase):
    """The program itself: started, driven through its control port, journal written."""

    def test_given_the_process_when_driven_through_its_control_port_then_it_does_what_it_is_told(self):
        with tempfile.TemporaryDirectory(prefix="standin-") as folder:
            standin = StandinProcess(Path(folder), devices=["dev1"])
            try:
                connection = Connection(standin.port)
                self.assertEqual(connection.get("/?id=dev2&lat=1&lon=2")[0], 400)
                standin.device("dev2", KNOWN)
                standin.fault(status=503, count=1)
                self.assertEqual(connection.get("/?id=dev2&lat=1&lon=2")[0], 503)
                self.assertEqual(connection.get("/?id=dev2&lat=1&lon=2&timestamp=1377177267")[0], 200)
                connection.close()
                positions = standin.positions()
                self.assertEqual([(p["device"], p["time_ms"]) for p in positions], [("dev2", 1377177267000)])
                self.assertEqual([r["status"] for r in standin.requests()], [400, 503, 200])
                journal = standin.journal.read_text().splitlines()
                self.assertEqual(len(journal), 1)
            finally:
                standin.stop()
            self.assertEqual(standin.process.returncode, 0)


def main(verbosity: int = 1) -> int:
    suite = unittest.defaultTestLoader.loadTestsFromModule(__import__(__name__, fromlist=["*"]))
    result = unittest.TextTestRunner(verbosity=verbosity).run(suite)
    return 0 if result.wasSuccessful() else 1
