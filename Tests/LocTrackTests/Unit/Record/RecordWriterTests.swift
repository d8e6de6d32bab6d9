import Glibc
import LocTrack
@testable import LocTrackCLI
import Testing
import LocTrackSystem
@testable import LocTrackFormats
import LocTrackProcess
@testable import LocTrackSinks

/// The track writer's loop (``TrackWriterStateMachine`` driven by ``TrackWriter/drive``)
/// with files in memory and a scripted stdin and clock: no disk, no waiting.
@Suite("Track writer: batching, rotation, sync cadence, end and errors", .timeLimit(.minutes(1)))
struct RecordWriterTests {
    typealias Read = ScriptedRecordFrames.Read
    let march1 = WriterFrames.march1
    let march2 = WriterFrames.march1 + 86_400

    struct Run {
        let code: ExitCode
        let files: InMemoryTrackFiles
        let input: ScriptedRecordFrames
        let errors: [String]
        /// What the writer reported after each sync: frames on disk, all told.
        let synced: [Int]
    }

    /// Records `reads` into `files` with `--output pattern --sync syncSeconds`, the writer starting at 0 ms.
    func record(_ reads: [Read], pattern: String = "%F.json", syncSeconds: Double = 10,
                files: InMemoryTrackFiles = InMemoryTrackFiles()) throws -> Run {
        var input = ScriptedRecordFrames(reads)
        var machine = TrackWriterStateMachine(names: TrackFileNames(pattern: try TrackPathPattern(pattern)),
                                              syncSeconds: syncSeconds, now: input.now)
        var errors: [String] = []
        var synced: [Int] = []
        let code = TrackWriter.drive(
            &machine, files: files, input: &input, onError: { errors.append($0.description) }, onSynced: { synced.append($0) })
        return Run(code: code, files: files, input: input, errors: errors, synced: synced)
    }

    // MARK: Batching

    @Test("given one read of many records for one file when written then the file gets them in one append")
    func oneAppendPerRead() throws {
        let run = try record([Read(at: 5, frames: WriterFrames.seconds(march1..<(march1 + 50)))])
        #expect(run.files.log == ["open 2026-03-01.json", "append 2026-03-01.json 50",
                                  "sync 2026-03-01.json", "close 2026-03-01.json"])
        #expect(run.files.contents["2026-03-01.json"]?.count == 50)
        #expect(run.files.contents["2026-03-01.json"]?.last == "\(march1 + 49)\n")
        #expect(run.code == .success)
    }

    @Test("given three reads when written then each read is one append of its own records, in order")
    func oneAppendPerReadEach() throws {
        let run = try record([
            Read(at: 1000, frames: WriterFrames.seconds(march1..<(march1 + 3))),
            Read(at: 2000, frames: []),  // a read that held only part of a frame
            Read(at: 3000, frames: WriterFrames.seconds((march1 + 3)..<(march1 + 4))),
        ])
        #expect(run.files.operations.filter { if case .append = $0 { true } else { false } }
            == [.append("2026-03-01.json", records: 3), .append("2026-03-01.json", records: 1)])
        #expect(run.files.contents["2026-03-01.json"] == (Int64(0)..<4).map { "\(march1 + $0)\n" })
    }

    // MARK: Rotation

    @Test("given one read across a UTC midnight when written then the day's file is synced and closed before the next day's opens")
    func rotationAtMidnight() throws {
        let run = try record([Read(at: 1000, frames: WriterFrames.seconds((march2 - 2)..<(march2 + 3)))],
                             pattern: "tracks/%Y/%m-%d.gpx")
        #expect(run.files.log == [
            "open tracks/2026/03-01.gpx", "append tracks/2026/03-01.gpx 2",
            "sync tracks/2026/03-01.gpx", "close tracks/2026/03-01.gpx",
            "open tracks/2026/03-02.gpx", "append tracks/2026/03-02.gpx 3",
            "sync tracks/2026/03-02.gpx", "close tracks/2026/03-02.gpx",
        ])
        #expect(run.files.contents["tracks/2026/03-01.gpx"] == ["\(march2 - 2)\n", "\(march2 - 1)\n"])
        #expect(run.files.contents["tracks/2026/03-02.gpx"]?.first == "\(march2)\n")
    }

    @Test("given time going back across midnight when written then the earlier day's file is continued")
    func rotationBackInTime() throws {
        let run = try record([
            Read(at: 1000, frames: [WriterFrames.frame(march2, "a\n"), WriterFrames.frame(march2 - 1, "b\n")]),
            Read(at: 2000, frames: [WriterFrames.frame(march2 + 1, "c\n")]),
        ], syncSeconds: 0)
        #expect(run.files.log == [
            "open 2026-03-02.json", "append 2026-03-02.json 1", "sync 2026-03-02.json", "close 2026-03-02.json",
            "open 2026-03-01.json", "append 2026-03-01.json 1", "sync 2026-03-01.json",  // --sync 0: after the read
            "close 2026-03-01.json", "open 2026-03-02.json", "append 2026-03-02.json 1", "sync 2026-03-02.json",
            "close 2026-03-02.json",
        ])
        #expect(run.files.contents == ["2026-03-02.json": ["a\n", "c\n"], "2026-03-01.json": ["b\n"]])
        // Each sync (a rotation's too) reports every frame appended before it: on disk.
        // (--sync 0 syncs after the read, and the rotation syncs again: nothing new, the same count.)
        #expect(run.synced == [1, 2, 2, 3])
    }

    @Test("given --sync 10 when frames come at 1, 12 and 13 s then the reports of frames on disk come with the syncs only")
    func syncReports() throws {
        let run = try record([
            Read(at: 1000, frames: WriterFrames.seconds(march1..<(march1 + 4))),
            Read(at: 12_000, frames: WriterFrames.seconds((march1 + 4)..<(march1 + 6))),
            Read(at: 13_000, frames: WriterFrames.seconds((march1 + 6)..<(march1 + 7))),
        ])
        // The 4 frames of 1 s are synced at their deadline (11 s), the rest when stdin ends.
        #expect(run.synced == [4, 7], "\(run.files.log)")
    }

    // MARK: Sync cadence

    @Test("given --sync 0 when reads come then every read is synced")
    func syncEveryRead() throws {
        let run = try record((1...3).map { Read(at: Int64($0) * 1000, frames: WriterFrames.seconds((march1 + Int64($0))..<(march1 + Int64($0) + 1))) },
                             syncSeconds: 0)
        #expect(run.files.log == ["open 2026-03-01.json"]
            + Array(repeating: ["append 2026-03-01.json 1", "sync 2026-03-01.json"], count: 3).flatMap { $0 }
            + ["close 2026-03-01.json"])
        #expect(run.input.deadlines == [nil, nil, nil, nil])
    }

    @Test("given --sync 10 and a fix a second when written then a sync comes with the first read 10 s after the last")
    func syncEveryTenSeconds() throws {
        // The writer starts at 0 ms; reads at 1 s … 25 s.
        let reads = (1...25).map { Read(at: Int64($0) * 1000, frames: [WriterFrames.frame(march1 + Int64($0), "\($0)\n")]) }
        let run = try record(reads, syncSeconds: 10)
        // Appends between syncs: 10 (1 s … 10 s), 10 (11 s … 20 s), then 5 synced at the end.
        var appendsBetweenSyncs: [Int] = [0]
        for operation in run.files.operations {
            switch operation {
            case .append: appendsBetweenSyncs[appendsBetweenSyncs.count - 1] += 1
            case .sync: appendsBetweenSyncs.append(0)
            case .open, .close: break
            }
        }
        #expect(appendsBetweenSyncs == [10, 10, 5, 0])
        // Each wait with unsynced records is until 10 s after the last sync.
        #expect(run.input.deadlines == [nil] + Array(repeating: 10_000, count: 9) + [nil]
            + Array(repeating: 20_000, count: 9) + [nil] + Array(repeating: 30_000, count: 5))
    }

    @Test("given --sync 10 and a receiver that goes quiet when its deadline comes then its last fixes are synced then")
    func quietReceiverSyncedAtDeadline() throws {
        let run = try record([
            Read(at: 1000, frames: [WriterFrames.frame(march1, "1\n")]),
            Read(at: 2000, frames: [WriterFrames.frame(march1 + 1, "2\n")]),
            Read(at: 60_000, frames: [WriterFrames.frame(march1 + 59, "3\n")]),
        ], syncSeconds: 10)
        #expect(run.files.log == [
            "open 2026-03-01.json", "append 2026-03-01.json 1", "append 2026-03-01.json 1",
            "sync 2026-03-01.json",  // at 10 s, with nothing read since 2 s
            "append 2026-03-01.json 1",  // at 60 s, 50 s after that sync
            "sync 2026-03-01.json", "close 2026-03-01.json",
        ])
        // Waits: for the first read; until 10 s (twice, the second passing); for stdin with
        // nothing to sync; after the read at 60 s, whose sync came with it: for stdin.
        #expect(run.input.deadlines == [nil, 10_000, 10_000, nil, nil])
    }

    // MARK: The end and errors

    @Test("given unsynced records when stdin ends then the writer syncs, closes the file and exits 0")
    func endSyncsAndExits() throws {
        let run = try record([Read(at: 1000, frames: [WriterFrames.frame(march1, "1\n")])], syncSeconds: 3600)
        #expect(run.files.log == ["open 2026-03-01.json", "append 2026-03-01.json 1",
                                  "sync 2026-03-01.json", "close 2026-03-01.json"])
        #expect(run.code == .success)
        #expect(run.errors.isEmpty)
    }

    @Test("given stdin that ends before any record when the writer runs then no file is opened and it exits 0")
    func endWithoutRecords() throws {
        let run = try record([Read(at: 1000, frames: [])])
        #expect(run.files.log == [])
        #expect(run.code == .success)
    }

    @Test("given a file that cannot be opened when its first record comes then the writer exits with the error's code")
    func openFailureExits() throws {
        let files = InMemoryTrackFiles()
        files.failingOpens["2026-03-02.json"] = TrackFileError(path: "2026-03-02.json", kind: .io(action: "open", Errno(code: EACCES)))
        let run = try record([Read(at: 1000, frames: WriterFrames.seconds((march2 - 1)..<(march2 + 1))),
                              Read(at: 2000, frames: WriterFrames.seconds((march2 + 1)..<(march2 + 2)))], files: files)
        #expect(run.code == .outputFailed)
        #expect(run.code.rawValue == 74)
        #expect(run.errors == ["cannot open 2026-03-02.json: \(Errno(code: EACCES))"])
        // The day before was written and synced before the rotation; nothing was read after the failure.
        #expect(run.files.log == ["open 2026-03-01.json", "append 2026-03-01.json 1",
                                  "sync 2026-03-01.json", "close 2026-03-01.json"])
        #expect(run.input.deadlines == [nil])
    }

    @Test("given a file another loctrack records into when opened then the writer exits 75")
    func busyFileExits() throws {
        let files = InMemoryTrackFiles()
        files.failingOpens["2026-03-01.json"] = TrackFileError(path: "2026-03-01.json", kind: .busy)
        let run = try record([Read(at: 1000, frames: [WriterFrames.frame(march1, "1\n")])], files: files)
        #expect(run.code == .temporaryFailure)
        #expect(run.code.rawValue == 75)
        #expect(run.errors == ["2026-03-01.json is being recorded by another loctrack"])
        #expect(run.files.log == [])
    }

    @Test("given a full disk when a write fails then the writer exits 74 and closes the file")
    func writeFailureExits() throws {
        let files = InMemoryTrackFiles()
        files.failingWrites["2026-03-01.json"] = TrackFileError(path: "2026-03-01.json", kind: .io(action: "write", Errno(code: ENOSPC)))
        let run = try record([Read(at: 1000, frames: [WriterFrames.frame(march1, "1\n")])], files: files)
        #expect(run.code == .outputFailed)
        #expect(run.errors == ["cannot write 2026-03-01.json: \(Errno(code: ENOSPC))"])
        #expect(run.files.log == ["open 2026-03-01.json", "close 2026-03-01.json"])
    }
}
