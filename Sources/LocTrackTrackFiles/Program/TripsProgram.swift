import LocTrackFormats
package import LocTrackProcess
package import LocTrackSystem

/// What `loctrack-trips` does, with its input and output as seams: read every file (a
/// missing or bad one is said on stderr, the rest still read), merge their points into one
/// track, find its trips, print them, and say with the exit code what went wrong.
///
/// Exit codes (docs/exit-codes.md): 0 every file read whole (points without a time or that
/// share one are said on stderr, and still 0); 65 a file was not wholly readable (corrupt,
/// cut short, not a track, no point with a time: what it had was used); 66 a file is missing or
/// cannot be read; 74 writing stdout failed (not a closed pipe). When several apply, the
/// first of 74, 66, 65.
package struct TripsProgram<Environment: TripsEnvironment> {
    package let environment: Environment

    package init(_ environment: Environment) {
        self.environment = environment
    }

    package func run(files: [String], format: TripsFormat) -> ExitCode {
        var timeline = TrackTimeline()
        var missing = false
        var bad = false
        var filesRead = 0
        var namesWithPoints: [String] = []
        for file in files {
            let name = file == "-" ? "stdin" : file
            let bytes: [UInt8]
            do throws(Errno) {
                bytes = try environment.readFile(file)
            } catch {
                environment.printError("cannot read \(name): \(error)")
                missing = true
                continue
            }
            let reading = TrackFileReader.read(bytes)
            if let problem = reading.problem(named: name) {
                environment.printError(problem)
                bad = true
            }
            // What a whole file left out (points without a time, times that several share):
            // said, not damage.
            for note in reading.notes(named: name) { environment.printError(note) }
            if reading.format != nil { filesRead += 1 }
            if !reading.points.isEmpty { namesWithPoints.append(name) }
            timeline.add(reading.points)
        }
        var output = Output(environment: environment)
        var totals = TripTotals(files: filesRead)
        output.write(TripLines.begin(format))
        let track = timeline.merged()
        let measured = TripFinder.trips(in: track.lazy.map { point in
            totals.points += 1
            return point
        }) { trip in
            totals.add(trip)
            output.write(TripLines.line(trip, format))
        }
        totals.distanceInAll = measured.metres
        if let ratio = measured.speedDisagreement {
            // Once for the track, merged as it is: the file when there is one.
            let name = namesWithPoints.count == 1 ? namesWithPoints[0] : "the files together"
            environment.printError(name + ": " + TripLines.speedDisagreement(ratio))
        }
        output.write(TripLines.end(totals, format))
        if let failure = output.failure {
            environment.printError("cannot write the trips: \(failure)")
            return .outputFailed
        }
        return missing ? .noInput : bad ? .dataError : .success
    }

    /// stdout as the trips are written: a reader that went away (`| head -1`) ends the
    /// writing quietly; another failure ends it and is kept for the exit code.
    private struct Output {
        let environment: Environment
        var closed = false
        var failure: Errno?

        mutating func write(_ text: String) {
            guard !closed, !text.isEmpty else { return }
            do throws(Errno) {
                try environment.writeOutput(text)
            } catch {
                closed = true
                if error != .brokenPipe { failure = error }
            }
        }
    }
}

/// Where `loctrack trips` reads and writes: the files, stdout and stderr
/// (``SystemTripsEnvironment``), or a test's memory.
package protocol TripsEnvironment {
    /// The whole contents of a file (`-`: stdin).
    func readFile(_ path: String) throws(Errno) -> [UInt8]
    /// Writes text to stdout.
    func writeOutput(_ text: String) throws(Errno)
    /// One line on stderr (given without `loctrack: ` and without its line end).
    func printError(_ line: String)
}

/// The real files, stdout and stderr.
package struct SystemTripsEnvironment: TripsEnvironment {
    package init() {}

    package func readFile(_ path: String) throws(Errno) -> [UInt8] {
        path == "-" ? try readToEnd(StandardDescriptor.input) : try readWholeFile(path)
    }

    package func writeOutput(_ text: String) throws(Errno) {
        try writeAll(StandardDescriptor.output, text)
    }

    package func printError(_ line: String) {
        LocTrackSystem.printError(line)
    }
}
