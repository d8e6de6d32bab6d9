import Glibc

/// A shared object loaded while the program runs rather than when it starts: for a C
/// library that only some commands need and that costs every start-up when linked
/// (libcurl brings some 30 shared objects: docs/performance.md, "libcurl").
///
/// It is never unloaded: the library's own threads and exit handlers (OpenSSL's, under
/// libcurl) may run until the process ends, and would crash after a `dlclose`.
///
/// Unchecked sendability, at a C boundary: the handle is an opaque pointer, which Swift
/// cannot see as Sendable; `dlsym(3)` is thread-safe, and the handle never changes or goes
/// away.
package struct SharedLibrary: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    /// The name it was loaded by.
    package let name: String

    /// Loads `name` (a soname such as `libcurl.so.4`, looked up as the dynamic linker
    /// looks up a program's libraries) with every symbol bound at once and none made
    /// global. The C function is `dlopen(3)` with `RTLD_NOW | RTLD_LOCAL`.
    /// - Throws: ``SharedLibraryError`` with the dynamic linker's own text (`dlerror(3)`).
    package init(loading name: String) throws(SharedLibraryError) {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            throw SharedLibraryError(library: name, reason: Self.lastError())
        }
        self.handle = handle
        self.name = name
    }

    /// The address of the function or variable `symbol`. The C function is `dlsym(3)`.
    /// - Throws: ``SharedLibraryError`` when the library has no such symbol.
    package func address(of symbol: String) throws(SharedLibraryError) -> UnsafeMutableRawPointer {
        _ = dlerror()  // dlsym may rightly return NULL; only dlerror tells a failure
        guard let address = dlsym(handle, symbol) else {
            throw SharedLibraryError(library: name, reason: Self.lastError() ?? "\(name) has no symbol \(symbol)")
        }
        return address
    }

    /// The calling thread's last dynamic-linker error (`dlerror(3)`), cleared as it is read.
    private static func lastError() -> String? {
        dlerror().map { String(cString: $0) }
    }
}

/// Why a ``SharedLibrary`` could not be loaded or a symbol found, in the dynamic linker's
/// words (`libcurl.so.4: cannot open shared object file: No such file or directory`).
package struct SharedLibraryError: Error, Hashable, Sendable, CustomStringConvertible {
    package var library: String
    package var reason: String?

    package init(library: String, reason: String?) {
        self.library = library
        self.reason = reason
    }

    package var description: String { reason ?? "cannot load \(library)" }
}
