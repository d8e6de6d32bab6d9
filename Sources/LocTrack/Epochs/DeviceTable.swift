/// A few values keyed by device path, kept in an array and searched linearly.
///
/// gpsd has a handful of devices (nearly always one), and the table is bounded by
/// ``EpochMerger/maximumDevices``. A linear search over a few entries compares one
/// short string; a `Dictionary` hashes it with SipHash and runs the hashed
/// storage's code. At 1 Hz every fix finds the instruction cache cold, so that
/// code costs more than the comparisons (see docs/performance.md, "Why 1 Hz misses").
struct DeviceTable<Value> {
    /// A struct, not a tuple: a tuple's copy goes through the runtime's generic
    /// tuple witness, more code on every fix.
    struct Entry {
        let device: String
        var value: Value
    }
    private(set) var entries: [Entry] = []

    var count: Int { entries.count }

    /// The position of `device`'s entry, if it has one.
    func index(of device: String) -> Int? {
        entries.firstIndex { $0.device == device }
    }

    subscript(device: String) -> Value? {
        index(of: device).map { entries[$0].value }
    }

    /// The value at `index`, mutated in place (no copy of the value is made).
    subscript(at index: Int) -> Value {
        _read { yield entries[index].value }
        _modify { yield &entries[index].value }
    }

    /// Adds an entry for a device that has none; returns its position.
    mutating func append(_ device: String, _ value: Value) -> Int {
        entries.append(Entry(device: device, value: value))
        return entries.count - 1
    }

    mutating func remove(at index: Int) {
        entries.remove(at: index)
    }

    mutating func removeAll() {
        entries.removeAll()
    }
}
