@testable import LocTrack
import Testing

@Suite("Epoch merger: one fix per (device, time)", .timeLimit(.minutes(1)))
struct EpochMergerTests {
    static func fix(_ second: Int64, device: String = "/dev/a", altitude: Double? = nil, latitude: Double = 10) -> Fix {
        Fix(time: Timestamp(seconds: 1_800_000_000 + second), mode: altitude == nil ? .twoD : .threeD,
            device: device, latitude: latitude, longitude: 20, altitudeHAE: altitude)
    }

    static func report(_ fix: Fix) -> TPVReport {
        TPVReport(device: fix.device, mode: fix.mode.rawValue, fix: fix)
    }

    static func noFix(device: String = "/dev/a") -> TPVReport {
        TPVReport(device: device, mode: 1, fix: nil)
    }

    /// Feeds reports and returns what was emitted after each one.
    static func run(_ reports: [TPVReport], flushAtEnd: Bool = false) -> [[Fix]] {
        var merger = EpochMerger()
        var steps: [[Fix]] = []
        for report in reports {
            var emitted: [Fix] = []
            merger.accept(report) { emitted.append($0) }
            steps.append(emitted)
        }
        if flushAtEnd {
            var emitted: [Fix] = []
            merger.flush { emitted.append($0) }
            steps.append(emitted)
        }
        return steps
    }

    @Test("given several TPVs for one second when the next second starts then only the last of the first is emitted")
    func learningEmitsLastReportOnTimeAdvance() {
        let rmc = Self.fix(0)
        let gga = Self.fix(0, altitude: 100)
        let next = Self.fix(1)
        let steps = Self.run([Self.report(rmc), Self.report(gga), Self.report(next)])
        #expect(steps == [[], [], [gga]])
    }

    @Test("given a flush when a fix is held then it is emitted once and not again")
    func flushEmitsHeld() {
        let only = Self.fix(0, altitude: 5)
        let steps = Self.run([Self.report(only), Self.report(only)], flushAtEnd: true)
        #expect(steps == [[], [], [only]])
    }

    @Test("given 3 complete epochs with one TPV each when the 4th arrives then it is emitted at once (steady)")
    func steadyEmitsImmediately() {
        let fixes = (0..<6).map { Self.fix($0, altitude: Double($0)) }
        let steps = Self.run(fixes.map(Self.report))
        // 0, 1, 2 wait for the next epoch; when 3 arrives, three single-report epochs are complete.
        #expect(steps == [[], [fixes[0]], [fixes[1]], [fixes[2], fixes[3]], [fixes[4]], [fixes[5]]])
    }

    @Test("given steady mode when a second TPV repeats an emitted time then it is dropped and learning resumes")
    func lateReportDropsAndRelearns() {
        var reports = (0..<5).map { Self.report(Self.fix($0)) }
        reports.append(Self.report(Self.fix(4, altitude: 9)))  // too late for epoch 4
        reports.append(Self.report(Self.fix(5)))
        let steps = Self.run(reports)
        #expect(steps[3] == [Self.fix(2), Self.fix(3)])
        #expect(steps[4] == [Self.fix(4)])
        #expect(steps[5] == [])
        #expect(steps[6] == [])  // learning again: 5 is held, not emitted at once
    }

    @Test("given steady mode when the fix is lost then the next fix is held until its epoch ends")
    func lossOfFixRelearns() {
        var reports = (0..<5).map { Self.report(Self.fix($0)) }
        reports.append(Self.noFix())
        reports.append(Self.report(Self.fix(10)))
        reports.append(Self.report(Self.fix(10, altitude: 3)))
        reports.append(Self.report(Self.fix(11)))
        let steps = Self.run(reports)
        #expect(steps[6] == [])
        #expect(steps[7] == [])
        #expect(steps[8] == [Self.fix(10, altitude: 3)])
    }

    @Test("given a held epoch when the receiver reports no fix then the held fix is emitted at once")
    func noFixEndsTheEpoch() {
        let held = Self.fix(0, altitude: 9)
        let steps = Self.run([Self.report(held), Self.noFix(), Self.report(Self.fix(5))], flushAtEnd: true)
        #expect(steps == [[], [held], [], [Self.fix(5)]])
    }

    @Test("given two devices interleaved when merged then each device's epochs are separate and never mixed")
    func devicesAreSeparate() {
        let a0 = Self.fix(0, device: "/dev/a", latitude: 1)
        let b0 = Self.fix(0, device: "/dev/b", latitude: 2)
        let a1 = Self.fix(1, device: "/dev/a", latitude: 1)
        let b1 = Self.fix(1, device: "/dev/b", latitude: 2)
        let steps = Self.run([a0, b0, a1, b1].map(Self.report), flushAtEnd: true)
        #expect(steps == [[], [], [a0], [b0], [a1, b1]])
    }

    @Test("given a time that steps backwards when merged then both epochs are emitted once each")
    func backwardsStep() {
        let t5 = Self.fix(5)
        let t3 = Self.fix(3)
        let t6 = Self.fix(6)
        let steps = Self.run([t5, t3, t6].map(Self.report), flushAtEnd: true)
        #expect(steps.flatMap { $0 } == [t5, t3, t6])
    }

    @Test("given an epoch time that comes back later when merged then it is not emitted twice")
    func repeatedTimeNotTwice() {
        let reports = [Self.fix(1), Self.fix(2), Self.fix(1, altitude: 7), Self.fix(3)].map(Self.report)
        let steps = Self.run(reports, flushAtEnd: true)
        #expect(steps.flatMap { $0 } == [Self.fix(1), Self.fix(2), Self.fix(3)])
    }

    @Test("given more devices than are followed when merged then the least recent is flushed, nothing is lost")
    func boundedDevices() {
        let fixes = (0..<(EpochMerger.maximumDevices + 10)).map { Self.fix(0, device: "/dev/\($0)") }
        let steps = Self.run(fixes.map(Self.report), flushAtEnd: true)
        #expect(steps.flatMap { $0 }.count == fixes.count)
        #expect(Set(steps.flatMap { $0 }.map(\.device)) == Set(fixes.map(\.device)))
        #expect(steps[EpochMerger.maximumDevices] == [fixes[0]])  // device 0 made room for the 65th
    }

    @Test("given reports without a fix when merged then nothing is emitted")
    func noFixNothing() {
        let steps = Self.run([Self.noFix(), TPVReport(device: nil, mode: 0, fix: nil)], flushAtEnd: true)
        #expect(steps.allSatisfy { $0.isEmpty })
    }
}
