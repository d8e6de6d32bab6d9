"""What a Python user runs for a GPX track's distance and moving time: gpxpy (the trips part's rival,
Benchmarks/bench/trips.py). Parses the file, then `length_2d()` and `get_moving_data()`, and prints
{"points", "length_m", "moving_s"} as one JSON line. Runs in .build-bench/venv."""

import json
import sys

import gpxpy


def main() -> int:
    with open(sys.argv[1]) as f:
        gpx = gpxpy.parse(f)
    moving = gpx.get_moving_data()
    print(json.dumps({"points": gpx.get_points_no(), "length_m": round(gpx.length_2d(), 1),
                      "moving_s": round(moving.moving_time, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
