@testable import LocTrackMQTT
@testable import LocTrackSpool
import Testing

/// ``SpoolState``'s decisions without a disk: what an append writes where, what the
/// limit drops and which head that writes, when the head file is written and synced,
/// which segment files then go, and what a read reads. The ``Spool`` carries these plans
/// out with the state's mutex released; here they are checked as values, and recorded
/// back as the spool records them once the disk agrees.
@Suite("Spool state: the planned writes, drops, head writes, deletions and reads", .timeLimit(.minutes(1)))
struct SpoolStateTests {
    /// A segment of `/spool` starting at `first` whose records take `sizes` bytes each.
    func segment(_ first: UInt64, sizes: [Int]) -> SpoolSegment {
        var segment = SpoolSegment(firstSequence: first, directory: "/spool")
        var end: UInt32 = 0
        for size in sizes {
            end += UInt32(size)
            segment.ends.append(end)
        }
        return segment
    }

    /// A state of `segments` from `head`, the last segment open when `tailOpen`; 100-byte
    /// segments; the head file synced at time 0.
    func makeState(_ segments: [SpoolSegment], head: UInt64 = 0, tailOpen: Bool = true, limitBytes: Int64 = 1000) -> SpoolState {
        SpoolState(
            directory: "/spool", limitBytes: limitBytes, segmentBytes: 100,
            index: SpoolIndex(segments: segments, head: head),
            tail: tailOpen ? segments.last.map { SpoolFile(notOpen: $0.path) } : nil, now: 0)
    }

    /// A message whose record takes exactly `size` bytes (a 1-byte topic, 12 bytes of framing).
    func message(size: Int, _ fill: UInt8 = 0) -> SpoolMessage {
        SpoolMessage(topic: "t", payload: Array(repeating: fill, count: size - 13), qos: 1, retain: false)
    }

    func path(_ first: UInt64) -> String { "/spool/" + SpoolSegment.fileName(first) }

    @Test("given a last segment with room for one more record when four are appended then one synced chunk fills it and a new segment, named for the next sequence, takes the rest")
    func appendAcrossSegments() throws {
        var state = makeState([segment(0, sizes: [30, 40])])
        let messages = (0..<4).map { message(size: 20, UInt8($0)) }
        #expect(SpoolRecord.size(of: messages[0]) == 20)

        let plan = try state.planAppend(messages)

        #expect(plan.firstSequence == 2)
        #expect(plan.tail?.path == path(0))
        #expect(plan.chunks == [
            SpoolAppendChunk(newSegment: nil, messages: 0..<1, offset: 70, ends: [90], sync: true),
            SpoolAppendChunk(newSegment: 3, messages: 1..<4, offset: 0, ends: [20, 40, 60], sync: false),
        ])

        // Recorded as the appender records it, chunk by chunk once written.
        state.appended(plan.chunks[0], messages: messages[0..<1])
        let replaced = state.segmentStarted(3, file: SpoolFile(notOpen: path(3)))
        #expect(replaced?.path == path(0))  // handed back, to be closed after the mutex
        #expect(state.tail?.path == path(3))
        state.appended(plan.chunks[1], messages: messages[1..<4])
        #expect(state.index.nextSequence == 6)
        #expect(state.index.segments.map(\.firstSequence) == [0, 3])
        #expect(state.index.segments.map(\.ends) == [[30, 70, 90], [20, 40, 60]])
        #expect(state.index.pendingBytes == 150)
        // What was just appended is read back from memory, not from disk.
        guard case .recent(let recent) = state.planRead(from: 2, limit: 10) else {
            Issue.record("the messages just appended planned as a disk read")
            return
        }
        #expect(recent.map(\.sequence) == [2, 3, 4, 5])
        #expect(recent.map(\.message) == messages)
    }

    @Test("given no open last segment when a record larger than a segment and a small one are appended then each starts a segment of its own, named for its sequence")
    func appendWithoutOpenSegment() throws {
        let state = makeState([], head: 42, tailOpen: false)

        let plan = try state.planAppend([message(size: 150), message(size: 20)])

        #expect(plan.firstSequence == 42)
        #expect(plan.tail == nil)
        #expect(plan.chunks == [
            SpoolAppendChunk(newSegment: 42, messages: 0..<1, offset: 0, ends: [150], sync: true),
            SpoolAppendChunk(newSegment: 43, messages: 1..<2, offset: 0, ends: [20], sync: false),
        ])
        #expect(try state.planAppend([]).chunks == [])
    }

    @Test("given a batch with a QoS of 3 when planned then invalidMessage is thrown for the folder")
    func appendInvalid() {
        let state = makeState([segment(0, sizes: [30])])
        let bad = SpoolMessage(topic: "t", payload: [], qos: 3, retain: false)
        #expect(throws: SpoolError(path: "/spool", kind: .invalidMessage(reason: "QoS 3 (MQTT has 0, 1 and 2)"))) {
            try state.planAppend([message(size: 20), bad])
        }
    }

    @Test("given pending bytes over the limit when the oldest are dropped then the new head is to be written synced, and only then may the segments below it go")
    func dropOverLimit() {
        var state = makeState([segment(0, sizes: [20, 20, 20, 20, 20]), segment(5, sizes: [20, 20])], limitBytes: 50)
        state.index.acknowledge(1)  // out of order: passing it drops nothing
        #expect(state.index.pendingBytes == 140)

        // 0 dropped, 1 passed, 2, 3 and 4 dropped: 40 bytes left.
        #expect(state.dropOldestOverLimit() == 4)
        #expect(state.index.head == 5)
        #expect(state.index.pendingBytes == 40)
        #expect(state.deletableSegments() == [])  // the head file still says 0
        let action = state.headAction(durably: true, now: 10)
        #expect(action == .write(5, sync: true))

        state.headWritten(action, now: 10)
        #expect(state.writtenHead == 5)
        #expect(state.index.durableHead == 5)
        #expect(state.lastHeadSync == 10)
        let deletable = state.deletableSegments()
        #expect(deletable.map(\.path) == [path(0)])  // 5 and 6 are still pending
        #expect(state.segmentDeleted(deletable[0]) == nil)  // not the open last segment
        #expect(state.index.segments.map(\.firstSequence) == [5])
        #expect(state.dropOldestOverLimit() == nil)  // within the limit now
        #expect(state.headAction(durably: true, now: 20) == .alreadySynced)
    }

    @Test("given acknowledgements when flushed not durably then the head is written unsynced, synced once a second has passed or a file could go, and files go only below the synced head")
    func acknowledgeAndFlush() {
        var state = makeState([segment(0, sizes: [10, 10]), segment(2, sizes: [10])])
        #expect(state.headAction(durably: false, now: 100) == .none)

        state.index.acknowledge(0)
        let first = state.headAction(durably: false, now: 500)
        #expect(first == .write(1, sync: false))
        state.headWritten(first, now: 500)
        #expect(state.writtenHead == 1)
        #expect(state.index.durableHead == 0)
        #expect(state.lastHeadSync == 0)
        #expect(state.headAction(durably: false, now: 600) == .none)
        #expect(state.headAction(durably: false, now: 1000) == .sync(1))  // a second since the last sync
        #expect(state.headAction(durably: true, now: 600) == .sync(1))

        state.index.acknowledge(1)  // segment 0 could go: the head is synced at once
        let second = state.headAction(durably: false, now: 700)
        #expect(second == .write(2, sync: true))
        #expect(state.deletableSegments() == [])
        state.headWritten(second, now: 700)
        #expect(state.index.durableHead == 2)
        #expect(state.lastHeadSync == 700)
        #expect(state.deletableSegments().map(\.firstSequence) == [0])
    }

    @Test("given everything acknowledged and the last segment full when flushed then its file goes too, its open file is handed back, and the next append starts a new segment")
    func deleteFullLastSegment() throws {
        var full = makeState([segment(0, sizes: [50, 50])])
        var roomy = makeState([segment(0, sizes: [50])])
        for sequence: UInt64 in [0, 1] { full.index.acknowledge(sequence) }
        roomy.index.acknowledge(0)
        full.headWritten(full.headAction(durably: true, now: 0), now: 0)
        roomy.headWritten(roomy.headAction(durably: true, now: 0), now: 0)
        #expect(roomy.deletableSegments() == [])  // open with room: kept for the next appends
        let deletable = full.deletableSegments()
        #expect(deletable.map(\.path) == [path(0)])

        let closed = full.segmentDeleted(deletable[0])

        #expect(closed?.path == path(0))  // to be closed after the mutex
        #expect(full.tail == nil)
        #expect(full.index.segments == [])
        #expect(full.index.nextSequence == 2)
        let plan = try full.planAppend([message(size: 20)])
        #expect(plan.tail == nil)
        #expect(plan.chunks == [SpoolAppendChunk(newSegment: 2, messages: 0..<1, offset: 0, ends: [20], sync: false)])
    }

    @Test("given a backlog on disk with acknowledgements out of order when pages are planned then one read per segment from the first wanted record to the last, the last segment through its open file")
    func planReads() {
        var state = makeState([segment(0, sizes: [10, 10, 10]), segment(3, sizes: [10, 10, 10])])
        state.index.acknowledge(1)
        state.index.acknowledge(4)

        guard case .disk(let page) = state.planRead(from: 0, limit: 3),
              case .disk(let rest) = state.planRead(from: 4, limit: 10),
              case .disk(let none) = state.planRead(from: 0, limit: 0) else {
            Issue.record("a read from memory with nothing appended since the spool opened")
            return
        }

        #expect(page.count == 2)
        #expect(page.map(\.path) == [path(0), path(3)])
        #expect(page.map(\.firstSequence) == [0, 3])
        #expect(page.map(\.start) == [0, 0])
        #expect(page.map(\.ends) == [[10, 20, 30], [10]])
        #expect(page.map(\.wanted) == [[0, 2], [3]])
        #expect(page.map(\.segmentEnd) == [3, 6])
        #expect(page[0].file == nil)  // opened by its path
        #expect(page[1].file?.path == path(3))  // the open last segment
        // From 4 (acknowledged): the read starts at 5.
        #expect(rest.map(\.firstSequence) == [5])
        #expect(rest.map(\.start) == [20])
        #expect(rest.map(\.ends) == [[30]])
        #expect(rest.map(\.wanted) == [[5]])
        #expect(none.isEmpty)
    }
}
