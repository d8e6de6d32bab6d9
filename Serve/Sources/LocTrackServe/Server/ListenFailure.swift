import LocTrackWeb
import NIOCore

/// Why the server could not listen, in the words of the one line that says so
/// (`loctrack: cannot listen on ADDR:PORT: Address already in use`).
enum ListenFailure {
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            // bind(2)'s EADDRINUSE (another program has the port), EADDRNOTAVAIL (an
            // address that is not this machine's), EACCES (a port below 1024).
            return ServerProcess.describe(errno: error.errnoCode)
        case let error as SocketAddressError.UnknownHost:
            // getaddrinfo(3)'s words: "Name or service not known".
            return "unknown host \(error.host): \(error.errorDescription)"
        default:
            return "\(error)"
        }
    }
}
