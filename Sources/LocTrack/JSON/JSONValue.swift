/// A JSON value (RFC 8259), as the monitor's state file and GeoJSON documents need it.
///
/// loctrack's gpsd parser (Sources/LocTrack/Protocol) reads flat gpsd reports fast and
/// reads nothing else; GeoJSON nests, so it gets this small general tree instead.
/// Objects keep their members in order (a `[JSONMember]`, not a dictionary), so what is
/// written is stable and diffable, and a document read and written again keeps its order.
/// Numbers are `Double`s and always finite: JSON has no NaN or infinity.
package enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])
}

/// One `"key": value` member of a JSON object.
package struct JSONMember: Sendable, Hashable {
    package var key: String
    package var value: JSONValue

    package init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue {
    /// The value of the member `key`, when this is an object that has one.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    package var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    package var doubleValue: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    package var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    package var objectValue: [JSONMember]? {
        if case .object(let value) = self { value } else { nil }
    }

    package var isNull: Bool { self == .null }

    /// The number as an `Int`, when it is a whole number within ±2^53 (where every
    /// integer is exact in a `Double`).
    package var integerValue: Int? {
        guard case .number(let value) = self, value == value.rounded(),
              abs(value) <= JSONValue.largestExactInteger else { return nil }
        return Int(value)
    }

    /// What kind of value this is, for messages: "a string", "an array", "null".
    package var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// 2^53: beyond it not every integer has a `Double`.
    static let largestExactInteger: Double = 9_007_199_254_740_992
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
    package init(floatLiteral value: Double) { self = .number(value) }
    package init(integerLiteral value: Int) { self = .number(Double(value)) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    /// An object with the members in the order written.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { JSONMember($0.0, $0.1) })
    }
}
