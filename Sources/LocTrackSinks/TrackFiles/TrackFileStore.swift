import LocTrackFormats
/// Where the track writer's files are: the disk (``DiskTrackFiles``), or memory in tests.
package protocol TrackFileStore {
    associatedtype File: TrackFileWriting
    /// Creates the file at `path` (and its folders) or continues it.
    func open(_ path: String) throws(TrackFileError) -> File
}

/// One open track file. It is closed when the last reference to it goes.
package protocol TrackFileWriting: AnyObject {
    /// Appends `records` in one write; afterwards the file is a whole document.
    func append(_ records: ArraySlice<RecordFrame.Decoded>) throws(TrackFileError)
    /// `fdatasync` if anything was written since the last one.
    func sync() throws(TrackFileError)
}

/// Track files on disk: ``TrackFile``s of one layout.
package struct DiskTrackFiles: TrackFileStore {
    package let layout: TrackFileLayout
    /// Told when a torn end is cut off an existing file.
    package let onRepair: (String) -> Void

    package func open(_ path: String) throws(TrackFileError) -> TrackFile {
        try TrackFile(path: path, layout: layout, onRepair: onRepair)
    }
}

extension TrackFile: TrackFileWriting {}
