#!/usr/bin/env python3
"""Write demo/track.nmea: a synthetic but realistic NMEA 0183 recording.

The scenario is a five-minute drive east along West/East 42nd Street in
Manhattan, New York, on Sunday 2026-03-15 from 11:12:00 UTC (07:12 EDT),
recorded by a GPS-only receiver at 1 Hz:

  * cold start: 3 epochs without a fix while the receiver acquires;
  * 11th Avenue (low-rise car dealerships, near the Hudson): open sky,
    ~10 satellites, HDOP below 1, small GST sigmas;
  * east towards 8th and 7th Avenue (Port Authority, Times Square): the
    street turns into an urban canyon; satellites across the street are
    blocked, some are tracked through reflections only (low SNR), HDOP and
    the GST error estimates grow;
  * between 7th and 6th Avenue the canyon is deepest: only 3 satellites
    along the street axis or near the zenith remain, so the receiver drops
    to a 2D fix (GSA mode 2, GGA with 3 satellites and no altitude);
  * Bryant Park opens the south side between 6th and 5th Avenue: back to
    3D with a better geometry;
  * at Park Avenue the car waits at the light under the Park Avenue
    Viaduct (Pershing Square, in front of Grand Central Terminal): every
    satellite is blocked, the fix is lost (RMC status V, GGA quality 0,
    GSA mode 1) for about 10 s and is reacquired with a poor first fix;
  * on to Lexington and 3rd Avenue (Chrysler Building): canyon, 3D.

Everything below is a small physical model, not a recording: the street is a
straight line at bearing 119 degrees, buildings are walls of a given height on
either side, satellites are blocked when they are below the wall seen along
their azimuth, DOPs are computed from the geometry of the satellites used,
the position error is a Gauss-Markov process scaled by UERE x DOP, and the
GST sentence reports the receiver's own estimate of that error.

Deterministic: fixed seed, no dependence on the clock or locale.  Run it from
anywhere; it writes track.nmea next to this script.  Python 3 stdlib only.

gpsd 3.22 moves NMEA dates before 2017 forward by 1024 weeks, so the date
must stay recent (2026 here).
"""

import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from support.gpsd_replay import nmea  # noqa: E402 (the one NMEA writer of the Python tools)

SEED = 20260315
START_UTC = (2026, 3, 15, 11, 12, 0)  # Y M D h m s
EPOCHS = 300                          # 1 Hz
COLD_START_EPOCHS = 3

# ---------------------------------------------------------------- geometry ---
# 42nd Street & Park Avenue, the origin of the along-street coordinate s = 0
# is 10th Avenue; Park Avenue is at s = 1600 m.
PARK_LAT, PARK_LON = 40.751850, -73.977680
PARK_S = 1600.0
BEARING = 119.0            # degrees true, direction of travel (east-south-east)
LANE_OFFSET = 5.0          # metres right of the centre line
GEOID_SEP = -32.6          # EGM96 geoid separation at Manhattan, metres
ANTENNA = 1.5              # antenna above the road, metres

M_PER_DEG_LAT = 111_034.0
M_PER_DEG_LON = 111_320.0 * math.cos(math.radians(PARK_LAT))

AVENUES = {  # s in metres along 42nd Street
    "11th Ave": -260, "10th Ave": 0, "9th Ave": 260, "8th Ave": 520,
    "7th Ave": 770, "6th Ave": 1050, "5th Ave": 1330, "Madison Ave": 1460,
    "Park Ave": 1600, "Lexington Ave": 1740, "3rd Ave": 1930,
}

# Urban environment along the street: (s_from, s_to, north wall height,
# south wall height, half street width, NLOS reflections possible, UERE m)
ENVIRONMENT = [
    (-10_000, -150, 6, 6, 25, False, 2.2),     # 11th Ave: low-rise, open sky
    (-150, 120, 20, 12, 16, False, 2.8),       # 10th Ave
    (120, 520, 45, 40, 15, True, 4.0),         # 9th-8th Ave
    (520, 840, 110, 60, 15, True, 5.0),        # 8th-7th Ave, Times Square
    (840, 985, 170, 70, 15, False, 5.5),       # deepest canyon: 2D stretch
    (985, 1090, 90, 60, 15, True, 5.0),        # 6th Ave
    (1090, 1330, 80, 0, 15, True, 3.5),        # Bryant Park on the south side
    (1330, 1590, 120, 60, 15, True, 5.0),      # 5th-Park Ave
    (1590, 1612, None, None, 15, False, 20.0),  # under the Park Ave Viaduct
    (1612, 10_000, 120, 55, 15, True, 4.5),    # Lexington, Chrysler Building
]

# Road elevation above mean sea level along the street (s, metres).
ELEVATION = [(-400, 4.0), (-260, 6.0), (0, 13.0), (520, 19.0), (770, 17.0),
             (1050, 22.0), (1330, 26.0), (1600, 24.0), (1930, 16.0), (2500, 8.0)]

# ------------------------------------------------------------ the drive ------
START_S = -260.0                    # 11th Avenue
# (position of the stop line, seconds waited there)
STOPS = [(-260.0, 9.0), (520.0, 10.0), (1050.0, 6.0), (1597.0, 2.0),
         (1930.0, 1e9)]
# cruise speed (m/s) by segment: (s_from, speed)
SPEEDS = [(-10_000, 12.5), (520, 9.5), (770, 7.0), (1050, 10.5), (1330, 8.5),
          (1620, 9.5)]
ACCEL, BRAKE = 1.3, 1.8             # m/s^2

# ------------------------------------------------------------- satellites ---
# PRN: (elevation deg, azimuth deg, elevation rate deg/min, azimuth rate deg/min)
SKY = {
    2: (63.0, 297.0, -0.35, 0.30),
    5: (21.0, 52.0, 0.45, -0.10),
    7: (9.0, 322.0, -0.40, 0.05),
    8: (41.0, 168.0, 0.30, 0.45),
    10: (44.0, 86.0, -0.25, -0.20),
    13: (6.0, 104.0, 0.40, -0.05),
    15: (28.0, 232.0, -0.30, 0.15),
    16: (17.0, 268.0, 0.35, -0.10),
    18: (52.0, 28.0, 0.30, -0.35),
    23: (11.0, 190.0, -0.35, 0.10),
    26: (36.0, 124.0, 0.40, 0.20),
    27: (3.0, 340.0, 0.25, 0.05),
    29: (79.0, 200.0, -0.20, 0.80),
}
ELEVATION_MASK = 5.0


def lerp_table(table, x):
    if x <= table[0][0]:
        return table[0][1]
    for (x0, y0), (x1, y1) in zip(table, table[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return table[-1][1]


def environment(s):
    for row in ENVIRONMENT:
        if row[0] <= s < row[1]:
            return row
    return ENVIRONMENT[-1]


def cruise_speed(s):
    v = SPEEDS[0][1]
    for s0, speed in SPEEDS:
        if s >= s0:
            v = speed
    return v


def drive(rng):
    """Integrate a simple driver model at 10 Hz; return (s, v) per second."""
    dt = 0.1
    s, v = START_S, 0.0
    stop_index, waited = 0, 0.0
    jitter = 0.0
    out = []
    for step in range(EPOCHS * 10):
        if step % 10 == 0:
            out.append((s, v))
        stop_s, stop_wait = STOPS[stop_index]
        to_stop = stop_s - s
        if to_stop <= 0.3 and v < 0.3:
            v = 0.0
            waited += dt
            if waited >= stop_wait and stop_index + 1 < len(STOPS):
                stop_index, waited = stop_index + 1, 0.0
            continue
        if step % 20 == 0:
            jitter = 0.8 * jitter + rng.gauss(0.0, 0.5)
        target = max(2.0, cruise_speed(s) + jitter)
        braking_distance = v * v / (2 * BRAKE)
        if to_stop - 0.5 <= braking_distance:
            v = max(0.0, v - BRAKE * dt) if to_stop > 0.3 else 0.0
            if v == 0.0 and to_stop > 0.3:
                v = 0.5  # creep up to the stop line
        elif v < target:
            v = min(target, v + ACCEL * dt)
        else:
            v = max(target, v - BRAKE * 0.5 * dt)
        s += v * dt
    return out


def street_to_geo(s, offset_right=LANE_OFFSET):
    """Along-street metres -> (lat, lon) on the driving lane."""
    b = math.radians(BEARING)
    ds = s - PARK_S
    east = ds * math.sin(b) + offset_right * math.cos(b)
    north = ds * math.cos(b) - offset_right * math.sin(b)
    return PARK_LAT + north / M_PER_DEG_LAT, PARK_LON + east / M_PER_DEG_LON


def invert(m):
    n = len(m)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)]
         for i, row in enumerate(m)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-12:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        a[col] = [x / p for x in a[col]]
        for r in range(n):
            if r != col:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [row[n:] for row in a]


def dops(sats, three_d):
    """Covariance factors (Q matrix in E, N, U[, clock]) for the used sats."""
    rows = []
    for el, az in sats:
        e, a = math.radians(el), math.radians(az)
        los = [math.cos(e) * math.sin(a), math.cos(e) * math.cos(a), math.sin(e)]
        rows.append([-los[0], -los[1]] + ([-los[2]] if three_d else []) + [1.0])
    n = len(rows[0])
    gtg = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    return invert(gtg)


def sentence(body):
    return nmea(body) + "\r\n"


def nmea_lat(lat):
    hemi = "N" if lat >= 0 else "S"
    lat = abs(lat)
    deg = int(lat)
    return "%02d%08.5f" % (deg, (lat - deg) * 60.0), hemi


def nmea_lon(lon):
    hemi = "E" if lon >= 0 else "W"
    lon = abs(lon)
    deg = int(lon)
    return "%03d%08.5f" % (deg, (lon - deg) * 60.0), hemi


def main():
    rng = random.Random(SEED)
    trajectory = drive(rng)

    # Per-satellite receiver state: seconds of continuous line of sight needed
    # before lock (reacquisition delay), current lock flag, SNR noise.
    lock = {prn: False for prn in SKY}
    visible_for = {prn: 0 for prn in SKY}
    reacq = {prn: rng.randint(2, 4) for prn in SKY}
    snr_bias = {prn: rng.uniform(-2.5, 2.5) for prn in SKY}
    fade = {prn: 0.0 for prn in SKY}
    z_e, z_n, z_u = rng.gauss(0, 1), rng.gauss(0, 1), rng.gauss(0, 1)
    err_u = 0.0
    reacquired_at = None
    had_fix = False

    y, mo, d, hh, mi, ss = START_UTC
    lines = [
        "# Name: loctrack demo track (synthetic)\r\n",
        "# Generator: demo/make-track.py (deterministic, seed %d)\r\n" % SEED,
        "# Scenario: drive east on 42nd Street, Manhattan, New York, from 11th Ave\r\n",
        "#   to 3rd Ave; open sky, urban canyon, a 2D stretch between 7th and 6th Ave,\r\n",
        "#   loss of fix under the Park Avenue Viaduct, reacquisition.\r\n",
        "# Date: 2026-03-15, 1 Hz, %d epochs, GPS-only receiver\r\n" % EPOCHS,
        "# Sentences: GPRMC GPGGA GPGSA GPGSV (every 5 s) GPGST\r\n",
        "# This file is generated; do not edit. Regenerate: python3 demo/make-track.py\r\n",
    ]
    summary = []

    for t, (s, v) in enumerate(trajectory):
        sec_of_day = hh * 3600 + mi * 60 + ss + t
        hms = "%02d%02d%02d.00" % (sec_of_day // 3600, sec_of_day // 60 % 60,
                                   sec_of_day % 60)
        date = "%02d%02d%02d" % (d, mo, y % 100)
        minutes = t / 60.0
        _, _, h_north, h_south, half_width, nlos_ok, uere = environment(s)

        # ---- sky and visibility
        sky = {}
        for prn, (el0, az0, del_, daz) in SKY.items():
            el = el0 + del_ * minutes
            az = (az0 + daz * minutes) % 360.0
            sky[prn] = (el, az)
        for prn in SKY:
            fade[prn] = 0.8 * fade[prn] + 0.6 * rng.gauss(0.0, 1.0)
        tracked = {}
        for prn, (el, az) in sky.items():
            if el < ELEVATION_MASK or t < COLD_START_EPOCHS:
                visible_for[prn], lock[prn] = 0, False
                continue
            if h_north is None:        # covered: nothing gets through
                los, nlos = False, False
            else:
                phi = math.radians(az - BEARING)
                side_h = h_south if math.sin(phi) > 0 else h_north
                tan_mask = side_h * abs(math.sin(phi)) / half_width
                mask = math.degrees(math.atan(tan_mask))
                los = el > mask
                # reflections off the facade opposite: usable now and then
                nlos = (not los) and nlos_ok and el > 15.0 and fade[prn] > -0.6
            if los or nlos:
                visible_for[prn] += 1
            else:
                visible_for[prn], lock[prn] = 0, False
            if visible_for[prn] >= reacq[prn]:
                lock[prn] = True
            if lock[prn]:
                base = 30.0 + 17.0 * math.sqrt(math.sin(math.radians(el)))
                snr = base + snr_bias[prn] + rng.gauss(0.0, 1.2)
                if nlos:
                    snr -= rng.uniform(14.0, 19.0)
                tracked[prn] = int(round(min(50.0, max(12.0, snr))))

        used = sorted((p for p, snr in tracked.items() if snr >= 20),
                      key=lambda p: -sky[p][0])[:12]
        if len(used) >= 4:
            mode = 3
        elif len(used) == 3:
            mode = 2
        else:
            mode = 1
        q = None
        if mode >= 2:
            q = dops([sky[p] for p in used], mode == 3)
            if q is None:
                mode, q = 1, None

        # ---- position and error
        lat_true, lon_true = street_to_geo(s)
        alt_true = lerp_table(ELEVATION, s) + ANTENNA
        if mode >= 2:
            if not had_fix:
                reacquired_at = t
                had_fix = True
            # freshly reacquired fixes are worse; settle over ~15 s
            since = t - reacquired_at
            sigma = uere * (1.0 + 1.5 * math.exp(-since / 5.0))
            nlos_used = sum(1 for p in used if tracked[p] < 30)
            sigma *= 1.0 + 0.08 * nlos_used
            q_ee, q_nn, q_en = q[0][0], q[1][1], q[0][1]
            q_uu = q[2][2] if mode == 3 else None
            # unit-variance Gauss-Markov processes (30 s correlation time),
            # scaled by the current 1-sigma error of each axis
            a = math.exp(-1.0 / 30.0)
            k = math.sqrt(1.0 - a * a)
            z_e = a * z_e + k * rng.gauss(0, 1)
            z_n = a * z_n + k * rng.gauss(0, 1)
            z_u = a * z_u + k * rng.gauss(0, 1)
            err_e = z_e * sigma * math.sqrt(q_ee)
            err_n = z_n * sigma * math.sqrt(q_nn)
            err_u = z_u * sigma * math.sqrt(q_uu) if mode == 3 else err_u
            lat = lat_true + err_n / M_PER_DEG_LAT
            lon = lon_true + err_e / M_PER_DEG_LON
            alt = alt_true + err_u
            hdop = math.sqrt(q_ee + q_nn)
            vdop = math.sqrt(q_uu) if mode == 3 else None
            pdop = math.sqrt(q_ee + q_nn + q_uu) if mode == 3 else hdop
            # GST: receiver's own 1-sigma estimates
            lat_sd = sigma * math.sqrt(q_nn)
            lon_sd = sigma * math.sqrt(q_ee)
            alt_sd = sigma * math.sqrt(q_uu) if mode == 3 else None
            tr = q_ee + q_nn
            det = q_ee * q_nn - q_en * q_en
            disc = math.sqrt(max(0.0, tr * tr / 4.0 - det))
            smaj = sigma * math.sqrt(tr / 2.0 + disc)
            smin = sigma * math.sqrt(max(0.0, tr / 2.0 - disc))
            orient = (math.degrees(0.5 * math.atan2(2 * q_en, q_nn - q_ee))) % 180.0
            rms = sigma * rng.uniform(0.6, 0.9)
            speed_err = (0.05 if uere < 3 else 0.25) * rng.gauss(0, 1)
            speed = max(0.0, v + speed_err) if v > 0.0 else abs(speed_err) * 0.3
            course = (BEARING + rng.gauss(0, 1.5 if v > 3 else 6.0)) % 360.0
        else:
            had_fix = False

        # ---- sentences
        if mode >= 2:
            la, ns = nmea_lat(lat)
            lo, ew = nmea_lon(lon)
            knots = speed / 0.514444
            course_s = "%.2f" % course if speed > 0.3 else ""
            lines.append(sentence("GPRMC,%s,A,%s,%s,%s,%s,%.3f,%s,%s,,,A" % (
                hms, la, ns, lo, ew, knots, course_s, date)))
            alt_s = "%.1f" % alt if mode == 3 else ""
            lines.append(sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,%.2f,%s,M,%.1f,M,," % (
                hms, la, ns, lo, ew, len(used), hdop, alt_s, GEOID_SEP)))
            prns = ["%02d" % p for p in used] + [""] * (12 - len(used))
            vdop_s = "%.2f" % vdop if vdop is not None else ""
            lines.append(sentence("GPGSA,A,%d,%s,%.2f,%.2f,%s" % (
                mode, ",".join(prns), pdop, hdop, vdop_s)))
        else:
            lines.append(sentence("GPRMC,%s,V,,,,,,,%s,,,N" % (hms, date)))
            lines.append(sentence("GPGGA,%s,,,,,0,%02d,99.99,,,,,," % (hms, len(used))))
            lines.append(sentence("GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"))
        if t % 5 == 0:
            in_view = sorted(p for p, (el, _) in sky.items() if el >= 0)
            chunks = [in_view[i:i + 4] for i in range(0, len(in_view), 4)]
            for i, chunk in enumerate(chunks, 1):
                fields = []
                for p in chunk:
                    el, az = sky[p]
                    snr = "%02d" % tracked[p] if p in tracked else ""
                    fields.append("%02d,%02d,%03d,%s" % (p, round(el), round(az) % 360, snr))
                lines.append(sentence("GPGSV,%d,%d,%02d,%s" % (
                    len(chunks), i, len(in_view), ",".join(fields))))
        if mode >= 2:
            alt_sd_s = "%.1f" % alt_sd if alt_sd is not None else ""
            lines.append(sentence("GPGST,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%s" % (
                hms, rms, smaj, smin, orient, lat_sd, lon_sd, alt_sd_s)))
        else:
            lines.append(sentence("GPGST,%s,,,,,,," % hms))

        where = min(AVENUES, key=lambda name: abs(AVENUES[name] - s))
        summary.append((t, mode, len(used), s, v, where,
                        hdop if mode >= 2 else None,
                        (lat_sd, lon_sd) if mode >= 2 else None))

    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "track.nmea")
    with open(out, "w", newline="") as f:
        f.writelines(lines)

    # Human-readable outline of the scenario on stdout.
    prev = None
    counts = {1: 0, 2: 0, 3: 0}
    for t, mode, nused, s, v, where, hdop, sd in summary:
        counts[mode] += 1
        key = (mode, where)
        if key != prev:
            extra = ""
            if hdop is not None:
                extra = " hdop %.2f sigma lat/lon %.1f/%.1f m" % (hdop, sd[0], sd[1])
            print("t=%3ds  mode %d  sats %2d  s=%6.0f m  %4.1f m/s  near %-13s%s"
                  % (t, mode, nused, s, v, where, extra))
            prev = key
    print("wrote %s: %d epochs, %d lines; mode 3: %d, mode 2: %d, no fix: %d"
          % (out, len(summary), len(lines), counts[3], counts[2], counts[1]))


if __name__ == "__main__":
    main()
