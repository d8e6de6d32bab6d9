import Foundation
import FoundationXML

/// Reads loctrack's output back with parsers that are not loctrack's: CSV by RFC 4180 (strict,
/// below), GPX with libxml2 (Foundation's `XMLParser`), JSON with Foundation's `JSONDecoder`.
/// A parser's error (malformed output) is thrown with the text.
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

    /// RFC 4180, strictly: a field is either quoted (`""` for a quote inside) or holds no quote,
    /// CR or LF; records end with CRLF or LF; every row has the header's number of fields.
    package static func csv(_ text: String) throws -> Table {
        let bytes = Array(text.utf8)
        var records: [[String]] = [], record: [String] = [], index = 0
        func fail(_ problem: String) -> HarnessError { HarnessError("csv: \(problem) at byte \(index) of:\n\(text)") }
        while index < bytes.count {
            var field: [UInt8] = []
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                while true {
                    guard index < bytes.count else { throw fail("an unterminated quoted field") }
                    if bytes[index] == UInt8(ascii: "\"") {
                        guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") else { index += 1; break }
                        index += 1
                    }
                    field.append(bytes[index])
                    index += 1
                }
            } else {
                while index < bytes.count, !"\r\n,".utf8.contains(bytes[index]) {
                    guard bytes[index] != UInt8(ascii: "\"") else { throw fail("a quote in an unquoted field") }
                    field.append(bytes[index])
                    index += 1
                }
            }
            record.append(String(decoding: field, as: UTF8.self))
            if index == bytes.count { break }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                if index == bytes.count { record.append("") }
                continue
            case UInt8(ascii: "\r") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n"):
                index += 2
            case UInt8(ascii: "\n"):
                index += 1
            default:
                throw fail("\(Character(Unicode.Scalar(bytes[index]))) after a field")
            }
            records.append(record)
            record = []
        }
        if !record.isEmpty { records.append(record) }
        guard let header = records.first else { throw fail("no header") }
        guard records.allSatisfy({ $0.count == header.count }) else { throw fail("ragged rows") }
        let lineFeeds = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }
        let crlfOnly = bytes.last == UInt8(ascii: "\n") && lineFeeds.allSatisfy { $0 > 0 && bytes[$0 - 1] == UInt8(ascii: "\r") }
        return Table(header: header, rows: records.dropFirst().map { Dictionary(zip(header, $0)) { _, last in last } }, crlfOnly: crlfOnly)
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
        /// The root element, `{namespace}name`.
        package var root: String
        package var version: String?
        package var trackCount: Int
        package var hdopCount: Int
        package var segments: [[Point]]
    }

    /// The document by libxml2 (well-formed, namespaces resolved): its `trk`s, their `trkseg`s and
    /// `trkpt`s with `ele`, `time`, `fix` and loctrack's `eph` extension, and every `hdop` anywhere.
    package static func gpx(_ text: String) throws -> GPX {
        let reader = GPXReader()
        let parser = XMLParser(data: Data(text.utf8))
        parser.shouldProcessNamespaces = true
        parser.delegate = reader
        // parse() is true after some errors (an unclosed element, text after the root): the error tells.
        guard parser.parse(), parser.parserError == nil, reader.problem == nil else {
            throw HarnessError("gpx: \(parser.parserError.map { "\($0)" } ?? reader.problem ?? "not parsed") in:\n\(text)")
        }
        return reader.document
    }

    /// What is wrong with the GeoJSON lines (empty: nothing): each must be a Feature with a
    /// Point at [lon, lat(, altHAE)] whose properties equal the JSON line of the same fix.
    package static func geoJSONProblems(_ geojson: String, comparedWith json: String) throws -> [String] {
        let features = try jsonLines(geojson), lines = try jsonLines(json)
        var problems: [String] = []
        if features.count != lines.count { problems.append("\(features.count) features, \(lines.count) JSON lines") }
        for (number, (feature, line)) in zip(features, lines).enumerated() {
            guard case .object(let feature) = feature, case .object(let members) = line else {
                problems.append("\(number): not objects: \(feature), \(line)")
                continue
            }
            if feature["type"] != .string("Feature") { problems.append("\(number): type \(String(describing: feature["type"]))") }
            let coordinates = JSON.array([members["lon"], members["lat"], members["altHAE"]].compactMap { $0 })
            let geometry = feature["geometry"]
            if geometry?["type"] != .string("Point") || geometry?["coordinates"] != coordinates {
                problems.append("\(number): geometry \(String(describing: geometry)), expected Point \(coordinates)")
            }
            if feature["properties"] != line { problems.append("\(number): properties \(String(describing: feature["properties"])) differ from \(line)") }
            guard case .bool? = feature["properties"]?["stationary"] else {
                problems.append("\(number): no boolean stationary")
                continue
            }
        }
        return problems
    }

    /// What is wrong with the JSON lines by `docs/<schema>` (empty: nothing), by the JSON Schema
    /// keywords the schema uses (a keyword this does not know is thrown, not skipped): type,
    /// const, enum, minimum, maximum, pattern, required, additionalProperties, dependentRequired.
    package static func schemaProblems(_ json: String, schema schemaName: String = "fix.schema.json") throws -> [String] {
        let file = repositoryRoot.appendingPathComponent("docs/\(schemaName)")
        let schema = try JSONDecoder().decode(JSON.self, from: Data(contentsOf: file))
        guard case .object(let top) = schema, case .object(let properties)? = top["properties"] else {
            throw HarnessError("\(schemaName): no properties")
        }
        let known: Set = ["$schema", "title", "description", "type", "required", "additionalProperties", "properties",
                          "dependentRequired", "const", "enum", "minimum", "maximum", "pattern"]
        let used = Set(top.keys).union(properties.values.flatMap { $0.members.keys })
        guard used.isSubset(of: known) else { throw HarnessError("\(schemaName) uses \(used.subtracting(known).sorted())") }
        var problems: [String] = []
        for (number, (line, text)) in zip(try jsonLines(json), json.utf8.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }).enumerated() {
            let members = line.members
            problems += violations(of: top.filter { $0.key != "properties" }, by: line).map { "\(number): \($0)" }
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                if let spec = properties[key] {
                    problems += violations(of: spec.members, by: value).map { "\(number): \(key)=\(value) \($0)" }
                    // An integer is written as one: the decoder reads 2.0 as 2, JSON Schema takes it too.
                    if spec["type"] == .string("integer"), text.range(of: #""\#(key)":-?[0-9]+[,}]"#, options: .regularExpression) == nil {
                        problems.append("\(number): \(key) is not written as an integer")
                    }
                } else if top["additionalProperties"] == .bool(false) {
                    problems.append("\(number): \(key) is not in the schema")
                }
            }
        }
        return problems
    }

    /// A JSON value as Foundation's decoder reads it (numbers as `Double`; `true` is no number).
    package enum JSON: Decodable, Equatable, CustomStringConvertible {
        case null, bool(Bool), number(Double), string(String), array([JSON]), object([String: JSON])

        package init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                self = .null
            } else if let bool = try? value.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? value.decode(Double.self) {
                self = .number(number)
            } else if let string = try? value.decode(String.self) {
                self = .string(string)
            } else if let array = try? value.decode([JSON].self) {
                self = .array(array)
            } else {
                self = .object(try value.decode([String: JSON].self))
            }
        }

        package subscript(key: String) -> JSON? { members[key] }

        /// An object's members (none for any other value).
        package var members: [String: JSON] {
            if case .object(let members) = self { return members }
            return [:]
        }

        package var description: String {
            switch self {
            case .null: "null"
            case .bool(let value): "\(value)"
            case .number(let value): "\(value)"
            case .string(let value): value.debugDescription
            case .array(let values): "[\(values.map(\.description).joined(separator: ","))]"
            case .object(let members): "{\(members.sorted { $0.key < $1.key }.map { "\($0.key.debugDescription):\($0.value)" }.joined(separator: ","))}"
            }
        }
    }

    /// Each non-empty line of `text`, decoded.
    package static func jsonLines(_ text: String) throws -> [JSON] {
        try text.utf8.split(separator: UInt8(ascii: "\n")).map { line in
            do {
                return try JSONDecoder().decode(JSON.self, from: Data(line))
            } catch {
                throw HarnessError("not JSON (\(error)): \(String(decoding: line, as: UTF8.self))")
            }
        }
    }

    /// What `value` breaks of the keywords in `spec`.
    private static func violations(of spec: [String: JSON], by value: JSON) -> [String] {
        var found: [String] = []
        if let constant = spec["const"], value != constant { found.append("is not \(constant)") }
        if case .array(let options)? = spec["enum"], !options.contains(value) { found.append("is not one of \(options)") }
        if case .string(let type)? = spec["type"] {
            let fits = switch (type, value) {
            case ("number", .number), ("string", .string), ("boolean", .bool), ("object", .object): true
            case ("integer", .number(let number)): number == number.rounded()
            default: false
            }
            if !fits { found.append("is not \(type)") }
        }
        if case .number(let number) = value {
            if case .number(let minimum)? = spec["minimum"], number < minimum { found.append("is below \(minimum)") }
            if case .number(let maximum)? = spec["maximum"], number > maximum { found.append("is above \(maximum)") }
        }
        if case .string(let text) = value, case .string(let pattern)? = spec["pattern"],
           text.range(of: pattern, options: .regularExpression) == nil {
            found.append("does not match \(pattern)")
        }
        if case .object(let members) = value {
            if case .array(let required)? = spec["required"] {
                for case .string(let key) in required where members[key] == nil { found.append("has no \(key)") }
            }
            for (key, needs) in spec["dependentRequired"]?.members ?? [:] where members[key] != nil {
                guard case .array(let needs) = needs else { continue }
                for case .string(let need) in needs where members[need] == nil { found.append("has \(key) without \(need)") }
            }
        }
        return found
    }
}

/// The GPX elements `Parsers.gpx` reads, found by their path from the root.
private final class GPXReader: NSObject, XMLParserDelegate {
    static let gpx = "http://www.topografix.com/GPX/1/1"
    static let loctrack = "urn:loctrack:gpx:1"

    var document = Parsers.GPX(root: "", version: nil, trackCount: 0, hdopCount: 0, segments: [])
    var problem: String?
    /// The open elements, `{namespace}name`, from the root.
    private var path: [String] = []
    private var text = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        path.append("{\(namespaceURI ?? "")}\(name)")
        text = ""
        if name == "hdop" { document.hdopCount += 1 }
        if path.count == 1 {
            document.root = path[0]
            document.version = attributes["version"]
        }
        switch Array(path.dropFirst()) {
        case ["{\(Self.gpx)}trk"]:
            document.trackCount += 1
        case ["{\(Self.gpx)}trk", "{\(Self.gpx)}trkseg"]:
            document.segments.append([])
        case ["{\(Self.gpx)}trk", "{\(Self.gpx)}trkseg", "{\(Self.gpx)}trkpt"]:
            guard let latitude = attributes["lat"].flatMap(Double.init), let longitude = attributes["lon"].flatMap(Double.init) else {
                problem = problem ?? "a trkpt without a numeric lat and lon: \(attributes)"
                return
            }
            document.segments[document.segments.count - 1].append(Parsers.Point(latitude: latitude, longitude: longitude))
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let point = ["{\(Self.gpx)}trk", "{\(Self.gpx)}trkseg", "{\(Self.gpx)}trkpt"]
        let inside = Array(path.dropFirst())
        path.removeLast()
        guard inside.count > point.count, Array(inside.prefix(3)) == point, !document.segments.isEmpty,
              !document.segments[document.segments.count - 1].isEmpty else { return }
        let last = document.segments.count - 1, index = document.segments[last].count - 1
        switch Array(inside.dropFirst(3)) {
        case ["{\(Self.gpx)}ele"]:
            document.segments[last][index].elevation = document.segments[last][index].elevation ?? number(text)
        case ["{\(Self.gpx)}time"]:
            document.segments[last][index].time = document.segments[last][index].time ?? text
        case ["{\(Self.gpx)}fix"]:
            document.segments[last][index].fix = document.segments[last][index].fix ?? text
        case ["{\(Self.gpx)}extensions", "{\(Self.loctrack)}eph"]:
            document.segments[last][index].eph = document.segments[last][index].eph ?? number(text)
        default:
            break
        }
    }

    private func number(_ text: String) -> Double? {
        guard let value = Double(text) else {
            problem = problem ?? "\(text.debugDescription) is not a number"
            return nil
        }
        return value
    }
}
