/// Runs `body` with gpsd fed by `logs` (see ``GPSFake``); gpsfake and gpsd are
/// always killed and cleaned up afterwards, also when `body` throws or is cancelled.
package func withGPSFake<Result>(
    _ logs: [NMEALog], cycle: Duration = .milliseconds(5), port: Int? = nil, options: GPSFake.Options = GPSFake.Options(),
    _ body: (GPSFake) async throws -> Result
) async throws -> Result {
    let fake = try await GPSFake.start(logs, cycle: cycle, port: port, options: options)
    defer { fake.shutdown() }
    return try await body(fake)
}

/// Runs `body` with gpsd fed by one log.
package func withGPSFake<Result>(
    _ log: NMEALog, cycle: Duration = .milliseconds(5), port: Int? = nil, options: GPSFake.Options = GPSFake.Options(),
    _ body: (GPSFake) async throws -> Result
) async throws -> Result {
    try await withGPSFake([log], cycle: cycle, port: port, options: options, body)
}
