/// One kind of XML track file (GPX, TCX, KML): its elements below the root, turned into
/// records. ``XMLDocumentWalk`` picks the kind by the root element and hands each walk the
/// elements and the text it asks for, so that no walk touches libxml2.
///
/// A class: the document walk holds it for one parse, on one thread.
protocol XMLTrackWalk: AnyObject {
    /// An element below the root started. Returns whether its text is wanted: then it is
    /// handed to ``end(depth:text:)`` whole, and the elements inside it are part of that
    /// text, not seen on their own.
    func start(_ element: XMLElementStart) -> Bool

    /// The element at `depth` ended; `text` is its text when ``start(_:)`` wanted it, else nil.
    func end(depth: Int, text: [UInt8]?)

    /// What the document gave. `whole`: it ended whole, which is when a walk can say that it
    /// holds no track (of a document cut short, the track may be in the part that is gone).
    func finish(whole: Bool) -> TrackFileReading
}

/// An element as it starts: its name, namespace and attributes, valid only during the call
/// that is given it (they point into libxml2's buffers).
struct XMLElementStart {
    /// The local name, without a prefix: `trkpt`, `Track` for `gx:Track`.
    let name: XMLName
    let namespace: XMLName?
    /// 2 for a child of the root element.
    let depth: Int
    let line: Int
    /// Five pointers per attribute: local name, prefix, namespace, and the value's start and
    /// end (libxml2's SAX2 `startElementNs`).
    let attributeCount: Int
    let attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?

    /// The value of the attribute with the local name `name`, if the element has it.
    func attribute(_ name: StaticString) -> String? {
        guard let attributes else { return nil }
        for index in 0..<attributeCount {
            guard let local = attributes[5 * index], XMLName(local) == name, let start = attributes[5 * index + 3],
                  let end = attributes[5 * index + 4]
            else { continue }
            return String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
        }
        return nil
    }
}

/// A NUL-terminated UTF-8 name from libxml2, compared without making a String of it: a
/// month at 1 Hz is millions of elements.
struct XMLName {
    let bytes: UnsafePointer<UInt8>

    init(_ bytes: UnsafePointer<UInt8>) {
        self.bytes = bytes
    }

    var string: String { String(cString: bytes) }

    static func == (name: XMLName, expected: StaticString) -> Bool {
        expected.withUTF8Buffer { name.equals($0) }
    }

    static func == (name: XMLName, expected: String) -> Bool {
        var expected = expected
        return expected.withUTF8 { name.equals($0) }
    }

    private func equals(_ expected: UnsafeBufferPointer<UInt8>) -> Bool {
        for (index, byte) in expected.enumerated() where bytes[index] != byte { return false }
        return bytes[expected.count] == 0
    }
}
