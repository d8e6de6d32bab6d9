import LocTrack
import LocTrackMonitor
import LocTrackSystem
import LocTrackProcess
import LocTrackSinks

/// `loctrack monitor add`: one circle, or the regions of a GeoJSON file, in one write.
struct MonitorAddCommand {
    let options: MonitorCommand.Add

    func run() async -> ExitCode {
        do {
            let regions = try regions()
            let monitor = try GeofenceMonitor(named: options.name)
            try await monitor.add(regions, assuming: options.assumedState ?? .unknown)
            return .success
        } catch let error as GeofenceError {
            printError(error.description)
            return error.exitCode
        } catch let error as MonitorInputError {
            printError(error.description)
            return error.exitCode
        } catch {
            printError("\(error)")
            return .usage
        }
    }

    private func regions() throws -> [(identifier: String, condition: GeofenceCondition, title: String?)] {
        switch options.region {
        case .circle(let latitude, let longitude, let radius):
            let center = try GeoPoint(latitude: latitude, longitude: longitude)
            return [(options.identifier ?? "", try GeofenceCondition.circle(center: center, radius: radius), options.title)]
        case .geoJSON(let path):
            let bytes: [UInt8]
            do throws(Errno) {
                bytes = try readWholeFile(path == "-" ? "/dev/stdin" : path)
            } catch {
                throw MonitorInputError.unreadable(path: path, error)
            }
            let found = try GeoJSONRegions.conditions(in: bytes)
            if options.title != nil, found.count != 1 {
                throw MonitorInputError.oneTitleForMany(path: path, count: found.count)
            }
            if let identifier = options.identifier {
                guard found.count == 1 else { throw MonitorInputError.oneIdentifierForMany(path: path, count: found.count) }
                return [(identifier, found[0].condition, options.title ?? found[0].title)]
            }
            var seen = Set<String>()
            return try found.enumerated().map { index, region in
                guard let identifier = region.identifier else { throw MonitorInputError.missingIdentifier(path: path, feature: index + 1) }
                guard seen.insert(identifier).inserted else { throw MonitorInputError.duplicateIdentifier(path: path, identifier) }
                return (identifier, region.condition, options.title ?? region.title)
            }
        }
    }
}

/// `loctrack monitor remove ID`.
struct MonitorRemoveCommand {
    let identifier: String
    let name: String

    func run() async -> ExitCode {
        do {
            let monitor = try GeofenceMonitor(named: name)
            try await monitor.remove(identifier)
            return .success
        } catch {
            printError(error.description)
            return error.exitCode
        }
    }
}

/// What `monitor add` could not take from its command line or file.
enum MonitorInputError: Error, CustomStringConvertible {
    case unreadable(path: String, Errno)
    case oneIdentifierForMany(path: String, count: Int)
    case oneTitleForMany(path: String, count: Int)
    case missingIdentifier(path: String, feature: Int)
    case duplicateIdentifier(path: String, String)

    var description: String {
        switch self {
        case .unreadable(let path, let error):
            "cannot read \(path): \(error)"
        case .oneIdentifierForMany(let path, let count):
            "\(path) has \(count) regions but one ID was given; give each feature a properties.id and leave the ID out"
        case .oneTitleForMany(let path, let count):
            "\(path) has \(count) regions but one --title was given; give each feature a properties.name instead"
        case .missingIdentifier(let path, let feature):
            "\(path): feature \(feature) has no properties.id; give it one, or give a single feature an ID on the command line"
        case .duplicateIdentifier(let path, let identifier):
            "\(path): the id '\(identifier)' is used by more than one feature"
        }
    }

    var exitCode: ExitCode {
        if case .unreadable(_, let error) = self, error != .noSuchFile, error != .permissionDenied { return .outputFailed }
        return .usage
    }
}
