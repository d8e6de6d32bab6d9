import LocTrackDistance
import LocTrackProcess
import LocTrackMonitor
import LocTrackSinks
import LocTrackSystem

/// Starts what measures distance for `stream` and `monitor run`: the kept odometer
/// (``OdometerKeeper``) and the ``DistanceMeter`` over it, when `--odometer`, `--trips` or
/// a sink (Traccar's) asks for them.
enum DistanceWiring {
    enum Started {
        /// Nothing asked for distance: nothing was started.
        case off
        case measuring(DistanceMeter, OdometerKeeper)
        /// The one line is on stderr.
        case failed(ExitCode)
    }

    /// - Parameter forSinks: a sink needs distance (``SinkNeeds/distance``): every position a
    ///   Traccar server gets carries the odometer.
    static func start(
        _ options: DistanceOptions, forSinks: Bool,
        environment: [String: String] = StateDirectory.processEnvironment
    ) -> Started {
        guard options.measuresForOutput || forSinks else { return .off }
        guard let path = OdometerFile.path(given: options.odometerFile, environment: environment) else {
            return .failed(.outputFailed)
        }
        do throws(OdometerKeeperError) {
            let keeper = try OdometerKeeper(path: path)
            return .measuring(
                DistanceMeter(startingAt: keeper.startingMetres, detectsTrips: options.trips, keeper: keeper), keeper)
        } catch {
            printError(error.description)
            if case .store(.corruptFile) = error { return .failed(.dataError) }
            return .failed(.outputFailed)
        }
    }
}
