import LocTrack

/// A query string's `name=value` items, in order, as sent and decoded.
struct QueryItems {
    struct Item {
        /// As sent: what a redirect writes back.
        let raw: Substring
        /// Decoded; nil when the encoding is broken.
        let name: String?
        /// Decoded (empty for `name` without `=`); nil when the encoding is broken.
        let value: String?
    }

    let items: [Item]

    init(_ query: String) {
        items = query.split(separator: "&").map { raw in
            let equals = raw.firstIndex(of: "=")
            let name = raw[..<(equals ?? raw.endIndex)]
            let value = equals.map { raw[raw.index(after: $0)...] } ?? ""
            return Item(raw: raw, name: PercentDecoding.string(name), value: PercentDecoding.string(value))
        }
    }

    /// The items called `name` (decoded).
    func named(_ name: String) -> [Item] {
        items.filter { $0.name == name }
    }

    /// The query without the items called `name`, as sent (empty when nothing is left).
    func removing(_ name: String) -> String {
        items.filter { $0.name != name }.map { String($0.raw) }.joined(separator: "&")
    }
}
