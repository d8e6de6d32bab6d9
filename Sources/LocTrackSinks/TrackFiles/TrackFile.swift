import LocTrack
import LocTrackSystem
import LocTrackFormats

/// One track file being recorded (in the track writer's process): created or continued,
/// locked against a second recorder, appended to in whole records, synced on request.
///
/// After every ``append(_:)`` the file is a whole document: lines end with their newline,
/// and a GPX file ends with its closing tags, which the next points overwrite (one
/// `pwrite` of the points and the tags again). Should a write fail (a full disk), the
/// file is put back as it was before it, so what was written stays valid.
package final class TrackFile {
    package let path: String
    private let layout: TrackFileLayout
    /// The file, flocked; closed, and so unlocked, with this object.
    private let file: FileDescriptor
    private var descriptor: Int32 { file.rawValue }
    /// Lines: the file's size. GPX: where its closing tags start.
    private var end: Int64
    /// Bytes after `end` (and after the GPX tail) that are not part of the track: a torn end
    /// found when the file was opened; cut by the first write.
    private var cut: Int64 = 0
    /// GPX: a segment is open (the tail's `</trkseg>` closes it); else the next point opens one.
    private var segmentOpen = false
    /// GPX: the next point starts a segment of its own (the first one of a continued file);
    /// a break in the track comes with the record instead (`startsSegment`).
    private var breakBeforeNext = false
    /// The file did not exist: a first write that fails removes it again.
    private let created: Bool
    private var unsynced = false
    /// Written since the last ``sync()``.
    package var hasUnsynced: Bool { unsynced }

    /// How much of an existing file's end is read to find where to continue.
    package static let tailWindow = 1 << 20

    /// Creates `path` (and its folders) or continues it.
    /// - Parameter onRepair: told when a torn end is cut off an existing file.
    package init(path: String, layout: TrackFileLayout, onRepair: (String) -> Void) throws(TrackFileError) {
        self.path = path
        self.layout = layout
        let folder = Self.folder(of: path)
        if let folder {
            do throws(Errno) { try makeDirectories(folder, mode: 0o755) } catch {
                throw TrackFileError(path: folder, kind: .io(action: "create the folder", error))
            }
        }
        created = !fileExists(path)
        do throws(Errno) {
            file = try openFile(path, [.readWrite, .create], mode: 0o644)
        } catch {
            throw TrackFileError(path: path, kind: .io(action: "open", error))
        }
        do {
            do throws(Errno) { try lockFile(file.rawValue, .exclusive, waiting: false) } catch {
                if error == .wouldBlock { throw TrackFileError(path: path, kind: .busy) }
                throw TrackFileError(path: path, kind: .io(action: "lock", error))
            }
            let size: Int64
            do throws(Errno) { size = try seekToEnd(file.rawValue) } catch {
                throw TrackFileError(path: path, kind: .io(action: "read", error))
            }
            end = 0
            if size > 0 {
                let head = try read(at: 0, count: 4096)
                let tailStart = max(0, size - Int64(Self.tailWindow))
                let tail = try read(at: tailStart, count: Int(size - tailStart))
                switch layout.resume(size: size, head: head, tail: tail, tailStart: tailStart) {
                case .refused(let reason):
                    throw TrackFileError(path: path, kind: .notContinuable(reason))
                case .at(let offset, let cut):
                    (end, self.cut) = (offset, cut)
                    (segmentOpen, breakBeforeNext) = (layout == .gpx, layout == .gpx)
                    if cut > 0 { onRepair("\(path): cut \(cut) byte\(cut == 1 ? "" : "s") of a torn end (a power cut?) after its last whole record") }
                }
            } else if created, let folder {
                // The new name must survive a power cut too, not only the file's data.
                try? syncDirectory(folder)
            }
        }
    }

    /// Appends `records` (each payload a whole line, or a GPX `<trkpt>` line) in one write;
    /// a record's `startsSegment` starts a GPX segment before it.
    package func append(_ records: ArraySlice<RecordFrame.Decoded>) throws(TrackFileError) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.reduce(0) { $0 + $1.payload.count } + 256)
        let isNew = end == 0
        let segmentState = (segmentOpen, breakBeforeNext)
        switch layout {
        case .lines(let header):
            if isNew, let header { bytes += header }
            for record in records { bytes += record.payload }
        case .gpx:
            if isNew { bytes += TrackFileLayout.gpxHeader }
            for record in records {
                if !segmentOpen {
                    bytes += TrackFileLayout.gpxSegmentStart
                } else if record.startsSegment || breakBeforeNext {
                    bytes += TrackFileLayout.gpxSegmentBreak
                }
                (segmentOpen, breakBeforeNext) = (true, false)
                bytes += record.payload
            }
        }
        let body = bytes.count
        if layout == .gpx { bytes += TrackFileLayout.gpxTail }
        do throws(Errno) {
            try writeAll(descriptor, bytes, at: end)
            if cut > 0 { try truncateFile(descriptor, to: end + Int64(bytes.count)) }
        } catch {
            (segmentOpen, breakBeforeNext) = segmentState
            restore()
            throw TrackFileError(path: path, kind: .io(action: "write", error))
        }
        end += Int64(body)
        cut = 0
        unsynced = true
    }

    /// `fdatasync` if anything was written since the last one.
    package func sync() throws(TrackFileError) {
        guard unsynced else { return }
        do throws(Errno) { try syncData(descriptor) } catch {
            throw TrackFileError(path: path, kind: .io(action: "sync", error))
        }
        unsynced = false
    }

    /// After a failed write: the file as it was before it, whole (what a short write left is
    /// cut, with a torn end found at opening; GPX's closing tags are written again where
    /// they were). A file this write was to create is removed.
    private func restore() {
        if end == 0 {
            try? truncateFile(descriptor, to: 0)
            if created { try? removeFile(path) }
        } else if layout == .gpx {
            try? writeAll(descriptor, TrackFileLayout.gpxTail, at: end)
            try? truncateFile(descriptor, to: end + Int64(TrackFileLayout.gpxTail.count))
        } else {
            try? truncateFile(descriptor, to: end)
        }
        cut = 0
    }

    private func read(at offset: Int64, count: Int) throws(TrackFileError) -> [UInt8] {
        do throws(Errno) { return try readBytes(descriptor, at: offset, count: count) } catch {
            throw TrackFileError(path: path, kind: .io(action: "read", error))
        }
    }

    /// The folder part of `path`, or nil for a name in the current folder.
    package static func folder(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
