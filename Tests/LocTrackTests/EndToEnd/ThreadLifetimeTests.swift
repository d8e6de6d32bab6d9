import Foundation
import Glibc
@testable import LocTrack
import LocTrackSystem
import LocTrackTestSupport
import Synchronization
import Testing
@testable import LocTrackSinks

/// Issue 26, "a uniform system layer": every thread loctrack starts belongs to an owner
/// that joins it when it ends, so once the owner is gone (or finished) the thread is gone
/// too, by the time the release returns, not "soon". A thread whose last owner lets go on
/// the thread itself is joined by ``ThreadReaper``.
///
/// Threads and descriptors are counted in /proc/self (thread names from
/// /proc/self/task/*/comm, descriptors from /proc/self/fd), so each test runs in a process
/// of its own, as the session lifetime tests do (``OwnProcess``).
extension EndToEndTests {
    @Suite("Threads: joined when their owner ends", .serialized, .timeLimit(.minutes(1)))
    struct ThreadLifetime {
        @Test("given a session iterated from the cooperative pool when its loop ends then its reader and connector threads are joined before the loop's end returns, and its descriptors are closed")
        func sessionThreadsAreJoinedOnRelease() async throws {
            try await inItsOwnProcess(Self.sessionThreadsAreJoinedOnReleaseAlone)
        }

        static func sessionThreadsAreJoinedOnReleaseAlone() async throws {
            var baseline = ProcessResources.now
            for round in 0..<21 {
                if round == 1 { baseline = await ProcessResources.settled() }  // after a warm-up round
                let gpsd = SocketpairGPSD()
                let reading = Task {
                    for try await event in ReaderTests.session(gpsd).events() {
                        if case .fix = event { break }
                    }
                }
                let peer = try await gpsd.peer()
                try await ReaderTests.greet(peer)
                try await peer.send([Reports.tpv(round)])
                try await reading.value(within: .seconds(10), "the loop")
                // Joined in the release: no waiting for the threads here.
                let names = loctrackThreadNames()
                #expect(names.isEmpty, "round \(round): \(names)")
                try await peer.waitForEndOfFile()
            }
            let after = await ProcessResources.waitToReturn(to: baseline)
            #expect(after.descriptors == baseline.descriptors, "\(ProcessResources.descriptorTargets)")
            #expect(after.otherThreads == baseline.otherThreads, "\(ProcessResources.threadNames)")
        }

        @Test("given a session whose consumer runs on its reader thread (consumersRunOn:) when that consumer ends the last iteration there then the reader cannot join itself, ThreadReaper joins it, and the threads return to where they were")
        func releaseOnTheReaderThreadIsReaped() async throws {
            try await inItsOwnProcess(Self.releaseOnTheReaderThreadIsReapedAlone)
        }

        static func releaseOnTheReaderThreadIsReapedAlone() async throws {
            let executor = ConsumerExecutor()
            let owner = try JoinableThread(named: "test-owner") { executor.run() }
            var baseline = ProcessResources.now
            final class Count: Sendable { let value = Atomic(0) }
            let endedOnReader = Count()
            for round in 0..<21 {
                if round == 1 { baseline = await ProcessResources.settled() }  // after a warm-up round
                let gpsd = SocketpairGPSD()
                let reading = Task(executorPreference: executor) {
                    // Only the loop holds the session: its end releases the session, its
                    // connection and the reader's handle, on whatever thread runs it.
                    for try await event in GPSDSession(
                        source: ReaderTests.source, reconnectPolicy: .never, reportsSatellites: false, connector: gpsd,
                        timings: ReaderTests.timings, consumerExecutor: executor
                    ).events() {
                        if case .fix = event {
                            if currentThreadName() == "loctrack-gpsd" { endedOnReader.value.add(1, ordering: .relaxed) }
                            break
                        }
                    }
                }
                let peer = try await gpsd.peer()
                try await ReaderTests.greet(peer)
                try await peer.send([Reports.tpv(round)])
                try await reading.value(within: .seconds(10), "the loop")
                try await peer.waitForEndOfFile()
                let after = await waitForNoLoctrackThreads()
                #expect(after.isEmpty, "round \(round): \(after)")
            }
            // The case this test is about happened (the reader lends itself to a sleeping owner).
            #expect(endedOnReader.value.load(ordering: .relaxed) > 0)
            let after = await ProcessResources.waitToReturn(to: baseline)
            #expect(after.matches(baseline), "\(ProcessResources.threadNames), \(ProcessResources.descriptorTargets)")
            executor.stop()
            owner.join()
        }

        @Test("given a thread whose handle is dropped on that thread itself when its body returns then ThreadReaper joins it and the process's threads return to the count before")
        func handleDroppedOnItsOwnThreadIsReaped() async throws {
            try await inItsOwnProcess(Self.handleDroppedOnItsOwnThreadIsReapedAlone)
        }

        static func handleDroppedOnItsOwnThreadIsReapedAlone() async throws {
            final class Holder: Sendable {
                let thread = Mutex<JoinableThread?>(nil)
                let go = Semaphore()
            }
            let before = ProcessResources.now
            for _ in 0..<50 {
                let holder = Holder()
                var started: JoinableThread? = try JoinableThread(named: "test-self") {
                    holder.go.wait()
                    // The last owner lets go here, on the thread itself.
                    let mine = holder.thread.withLock { $0.take() }
                    _ = consume mine
                }
                holder.thread.withLock { $0 = started.take() }
                holder.go.signal()
            }
            let after = await waitUntil { ProcessResources.now.otherThreads == before.otherThreads }
            #expect(after.otherThreads == before.otherThreads, "\(ProcessResources.threadNames)")
            #expect(!ProcessResources.threadNames.contains("test-self"))
        }

        @Test("given an output writer and a signal watcher when one finishes writing, one is dropped unfinished and the watcher is stopped then loctrack-write and loctrack-signal are gone at once and their descriptors closed")
        func writerAndWatcherThreadsAreJoined() async throws {
            try await inItsOwnProcess(Self.writerAndWatcherThreadsAreJoinedAlone)
        }

        static func writerAndWatcherThreadsAreJoinedAlone() async throws {
            let baseline = ProcessResources.now
            do {
                let ends = try makePipe(nonBlocking: true)
                let finished = OutputWriter(owning: ends.write) {}
                #expect(loctrackThreadNames() == ["loctrack-write"])
                finished.enqueue("a line\n")
                #expect(await finished.finishWriting() == .written)
                #expect(loctrackThreadNames().isEmpty)
                var written = [UInt8](repeating: 0, count: 64)
                #expect(try systemRead(ends.read.rawValue, into: &written) == 7)
                #expect(try systemRead(ends.read.rawValue, into: &written) == 0, "the writer closed its end: end of file")
            }
            do {
                var dropped: OutputWriter? = OutputWriter(descriptor: StandardDescriptor.error) {}
                #expect(loctrackThreadNames() == ["loctrack-write"])
                _ = dropped
                dropped = nil
                #expect(loctrackThreadNames().isEmpty)
            }
            do {
                let fired = Semaphore()
                let watcher = try SignalWatcher(SignalSet([.hangUp]), timeout: .milliseconds(20), onTimeout: { fired.signal() }) { _ in }
                fired.wait()
                #expect(loctrackThreadNames() == ["loctrack-signal"])
                watcher.stop()
                #expect(loctrackThreadNames().isEmpty)
                var dropped: SignalWatcher? = try SignalWatcher(SignalSet([.hangUp])) { _ in }
                _ = dropped
                dropped = nil
                #expect(loctrackThreadNames().isEmpty)
            }
            let after = ProcessResources.now
            #expect(after.descriptors == baseline.descriptors, "\(ProcessResources.descriptorTargets)")
            #expect(after.otherThreads == baseline.otherThreads, "\(ProcessResources.threadNames)")
        }
    }
}

// MARK: - Helpers

/// loctrack's threads running now (their names), the reaper's included.
private func loctrackThreadNames() -> [String] {
    ProcessResources.threadNames.filter { $0.hasPrefix("loctrack-") }.sorted()
}

/// The calling thread's name, from /proc/thread-self/comm.
private func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

/// loctrack's threads once none is left, or after 5 s: what was left then.
private func waitForNoLoctrackThreads() async -> [String] {
    _ = await waitUntil { loctrackThreadNames().isEmpty }
    return loctrackThreadNames()
}

/// Polls `condition` every 10 ms for up to 5 s; returns the reading taken last.
@discardableResult
private func waitUntil(_ condition: () -> Bool) async -> ProcessResources {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() && ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(10))
    }
    return ProcessResources.now
}

/// Runs `body` in a process of its own (``OwnProcess``), as the session lifetime tests do.
private func inItsOwnProcess(
    test: String = #function, _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    if OwnProcess.isChild { return try await body() }
    let name = test.prefix { $0 != "(" }
    let child = try await OwnProcess.run(filter: #"EndToEndTests/ThreadLifetime/\#(name)\("#, timeLimit: .seconds(50))
    #expect(child.status == .exited(0), "\(name) in a process of its own:\n\(child.stderr)", sourceLocation: sourceLocation)
    #expect(child.stderr.contains("Test run with 1 test "), "the child ran \(name) alone:\n\(child.stderr)", sourceLocation: sourceLocation)
}
