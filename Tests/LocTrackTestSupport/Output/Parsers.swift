import Foundation

/// Reads loctrack's output back with real parsers: Python's `csv`, `xml.etree` and
/// `json`, run as `python3 -c` on the text; their findings come back as JSON.
package enum Parsers {
    package static let csvColumns = [
        "time", "device", "mode", "status", "lat", "lon", "altHAE", "altMSL",
        "eph", "epx", "epy", "epv", "speed", "track", "climb", "stationary",
    ]

    package struct Table {
        package var header: [String]
        package var rows: [[String: String]]
        /// Every record ends with CRLF (RFC 4180), and there is no bare LF.
        package var crlfOnly: Bool
    }

    package static func csv(_ text: String) async throws -> Table {
        let script = #"""
            import csv, io, json, sys
            data = sys.stdin.buffer.read().decode("utf-8")
            records = list(csv.reader(io.StringIO(data, newline=""), strict=True))
            header, rows = records[0], records[1:]
            assert all(len(row) == len(header) for row in rows), "ragged rows"
            crlf = data.endswith("\r\n") and data.count("\r\n") == data.count("\n")
            print(json.dumps({"header": header, "rows": [dict(zip(header, row)) for row in rows], "crlf": crlf}))
            """#
        guard let object = try await python(script, input: text) as? [String: Any],
              let header = object["header"] as? [String], let rows = object["rows"] as? [[String: String]]
        else { throw HarnessError("unexpected csv parse result") }
        return Table(header: header, rows: rows, crlfOnly: object["crlf"] as? Bool ?? false)
    }

    package struct Point {
        package var latitude: Double?
        package var longitude: Double?
        package var elevation: Double?
        package var time: String?
        package var fix: String?
        package var eph: Double?
    }

    package struct GPX {
        package var root: String
        package var version: String?
        package var trackCount: Int
        package var hdopCount: Int
        package var segments: [[Point]]
    }

    package static func gpx(_ text: String) async throws -> GPX {
        let script = #"""
            import json, sys, xml.etree.ElementTree as ET
            NS = {"g": "http://www.topografix.com/GPX/1/1", "l": "urn:loctrack:gpx:1"}
            root = ET.fromstring(sys.stdin.buffer.read())
            def text(element, path, convert=str):
                found = element.find(path, NS)
                return convert(found.text) if found is not None else None
            segments = []
            for segment in root.findall("g:trk/g:trkseg", NS):
                segments.append([{
                    "lat": float(point.get("lat")), "lon": float(point.get("lon")),
                    "ele": text(point, "g:ele", float), "time": text(point, "g:time"), "fix": text(point, "g:fix"),
                    "eph": text(point, "g:extensions/l:eph", float),
                } for point in segment.findall("g:trkpt", NS)])
            print(json.dumps({
                "root": root.tag, "version": root.get("version"),
                "trks": len(root.findall("g:trk", NS)),
                "hdop": sum(1 for element in root.iter() if element.tag.split("}")[-1] == "hdop"),
                "segments": segments,
            }))
            """#
        guard let object = try await python(script, input: text) as? [String: Any],
              let segments = object["segments"] as? [[[String: Any]]]
        else { throw HarnessError("unexpected gpx parse result") }
        func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }
        return GPX(
            root: object["root"] as? String ?? "", version: object["version"] as? String,
            trackCount: object["trks"] as? Int ?? -1, hdopCount: object["hdop"] as? Int ?? -1,
            segments: segments.map { points in
                points.map { point in
                    Point(
                        latitude: number(point["lat"]), longitude: number(point["lon"]), elevation: number(point["ele"]),
                        time: point["time"] as? String, fix: point["fix"] as? String, eph: number(point["eph"]))
                }
            })
    }

    /// What is wrong with the GeoJSON lines (empty: nothing): each must be a Feature with a
    /// Point at [lon, lat(, altHAE)] whose properties equal the JSON line of the same fix.
    package static func geoJSONProblems(_ geojson: String, comparedWith json: String) async throws -> [String] {
        let script = #"""
            import json, sys
            given = json.load(sys.stdin)
            features = [json.loads(line) for line in given["geojson"].split("\n") if line]
            lines = [json.loads(line) for line in given["json"].split("\n") if line]
            problems = []
            if len(features) != len(lines):
                problems.append("%d features, %d JSON lines" % (len(features), len(lines)))
            for number, (feature, line) in enumerate(zip(features, lines)):
                if feature.get("type") != "Feature":
                    problems.append("%d: type %r" % (number, feature.get("type")))
                geometry = feature.get("geometry", {})
                coordinates = [line["lon"], line["lat"]] + ([line["altHAE"]] if "altHAE" in line else [])
                if geometry.get("type") != "Point" or geometry.get("coordinates") != coordinates:
                    problems.append("%d: geometry %r, expected Point %r" % (number, geometry, coordinates))
                if feature.get("properties") != line:
                    problems.append("%d: properties %r differ from %r" % (number, feature.get("properties"), line))
                if not isinstance(feature.get("properties", {}).get("stationary"), bool):
                    problems.append("%d: no boolean stationary" % number)
            print(json.dumps(problems))
            """#
        let input = try JSONSerialization.data(withJSONObject: ["geojson": geojson, "json": json])
        guard let problems = try await python(script, input: String(decoding: input, as: UTF8.self)) as? [String] else {
            throw HarnessError("unexpected geojson check result")
        }
        return problems
    }

    /// What is wrong with the JSON lines by `docs/<schema>` (empty: nothing). Checks the
    /// field names, required fields and types itself, and validates fully with the `jsonschema`
    /// package where it is installed.
    package static func schemaProblems(_ json: String, schema schemaName: String = "fix.schema.json") async throws -> [String] {
        let script = #"""
            import json, sys
            schema = json.load(open(sys.argv[1]))
            types = {"number": (int, float), "integer": (int,), "string": (str,), "boolean": (bool,)}
            problems = []
            def no_constants(name):
                raise ValueError(name)
            for number, text in enumerate(sys.stdin.read().splitlines()):
                line = json.loads(text, parse_constant=no_constants)
                for key in schema["required"]:
                    if key not in line:
                        problems.append("%d: no %s" % (number, key))
                for key, value in line.items():
                    spec = schema["properties"].get(key)
                    if spec is None:
                        problems.append("%d: %s is not in the schema" % (number, key))
                    elif "const" in spec and value != spec["const"]:
                        problems.append("%d: %s=%r is not %r" % (number, key, value, spec["const"]))
                    elif "enum" in spec and value not in spec["enum"]:
                        problems.append("%d: %s=%r is not one of %r" % (number, key, value, spec["enum"]))
                    elif "type" in spec and (not isinstance(value, types[spec["type"]]) or (spec["type"] != "boolean" and isinstance(value, bool))):
                        problems.append("%d: %s=%r is not %s" % (number, key, value, spec["type"]))
                try:
                    import jsonschema
                except ImportError:
                    continue
                for error in jsonschema.Draft202012Validator(schema).iter_errors(line):
                    problems.append("%d: %s" % (number, error.message))
            print(json.dumps(problems))
            """#
        let schema = repositoryRoot.appendingPathComponent("docs/\(schemaName)").path
        guard let problems = try await python(script, input: json, arguments: [schema]) as? [String] else {
            throw HarnessError("unexpected schema check result")
        }
        return problems
    }

    /// Runs `python3 -c script arguments…` with `input` on stdin and parses what it prints as JSON.
    /// A parser's exception (malformed output) fails with Python's traceback.
    package static func python(_ script: String, input: String, arguments: [String] = []) async throws -> Any {
        let process = try ChildProcess(
            executable: "/usr/bin/env", arguments: ["env", "python3", "-c", script] + arguments,
            stdin: .pipe, stdout: .pipe, stderr: .pipe, newProcessGroup: false)
        process.writeToStdin(input)
        process.closeStdin()
        let result = try await process.result(timeLimit: .seconds(30))
        guard result.status == .exited(0) else {
            throw HarnessError("python3 failed (\(result.status)) on:\n\(input)\n--- stderr ---\n\(result.stderr)")
        }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed])
    }
}
