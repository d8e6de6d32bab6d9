import LocTrack
@testable import LocTrackCLI
@testable import LocTrackFormats
@testable import LocTrackSinks

/// Track files in memory for the track writer's tests: what was done to which file, in
/// order, and what each file holds. A file is closed when the writer lets go of it, as a
/// ``TrackFile`` is, so the log shows when the writer really released one.
final class InMemoryTrackFiles: TrackFileStore {
    enum Operation: Equatable, CustomStringConvertible {
        case open(String)
        /// How many records one write held.
        case append(String, records: Int)
        case sync(String)
        case close(String)

        var description: String {
            switch self {
            case .open(let name): "open \(name)"
            case .append(let name, let records): "append \(name) \(records)"
            case .sync(let name): "sync \(name)"
            case .close(let name): "close \(name)"
            }
        }
    }

    final class File: TrackFileWriting {
        let name: String
        private let store: InMemoryTrackFiles
        private var unsynced = false

        fileprivate init(name: String, store: InMemoryTrackFiles) {
            self.name = name
            self.store = store
        }

        deinit {
            store.operations.append(.close(name))
        }

        func append(_ records: ArraySlice<RecordFrame.Decoded>) throws(TrackFileError) {
            if let error = store.failingWrites[name] { throw error }
            store.operations.append(.append(name, records: records.count))
            store.contents[name, default: []] += records.map { String(decoding: $0.payload, as: UTF8.self) }
            unsynced = true
        }

        /// Logged only when something was written since the last one, as ``TrackFile`` syncs.
        func sync() throws(TrackFileError) {
            guard unsynced else { return }
            unsynced = false
            store.operations.append(.sync(name))
        }
    }

    private(set) var operations: [Operation] = []
    /// Each file's records (payloads), in the order written; a file opened again continues.
    private(set) var contents: [String: [String]] = [:]
    /// Files that cannot be opened, and why.
    var failingOpens: [String: TrackFileError] = [:]
    /// Files whose writes fail, and why.
    var failingWrites: [String: TrackFileError] = [:]

    func open(_ path: String) throws(TrackFileError) -> File {
        if let error = failingOpens[path] { throw error }
        operations.append(.open(path))
        return File(name: path, store: self)
    }

    /// The operations as text, one word per step: easy to read in a failed expectation.
    var log: [String] { operations.map(\.description) }
}
