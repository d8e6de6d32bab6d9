internal import CCurl
import LocTrackSystem

/// libcurl, loaded the first time an uplink starts and kept until the process ends: its
/// functions' addresses in the shim's `loctrack_curl_api`, which every wrapper of
/// Sources/CCurl/shim.h takes. Loaded, not linked, so that `loctrack` without a Traccar
/// uplink pays nothing for libcurl's 30 shared objects (docs/performance.md, "libcurl").
///
/// Unchecked sendability, at a C boundary: the table holds function addresses, which
/// Swift sees as raw pointers; it is written once, before any other thread can see it,
/// and never changes or goes away.
final class CurlLibrary: @unchecked Sendable {
    /// The soname of Debian's libcurl4 (OpenSSL flavour), which libcurl4-openssl-dev's
    /// headers describe.
    static let soname = "libcurl.so.4"

    /// The functions' addresses, for the shim's wrappers.
    let api: UnsafeMutablePointer<loctrack_curl_api>

    private init(api: UnsafeMutablePointer<loctrack_curl_api>) {
        self.api = api
    }

    /// libcurl, loaded and initialised (`curl_global_init(3)`) by the first call.
    /// - Throws: ``CurlError`` with the dynamic linker's or libcurl's words; every later
    ///   call throws the same.
    static func shared() throws(CurlError) -> CurlLibrary {
        try loaded.get()
    }

    /// Swift initialises a static once, thread-safely: libcurl's global init, which is not
    /// thread-safe in every libcurl, runs once before any handle exists.
    private static let loaded = Result { () throws(CurlError) -> CurlLibrary in try load() }

    private static func load() throws(CurlError) -> CurlLibrary {
        let table: loctrack_curl_api
        do throws(SharedLibraryError) {
            let library = try SharedLibrary(loading: soname)
            table = loctrack_curl_api(
                global_init: try library.address(of: "curl_global_init"),
                easy_init: try library.address(of: "curl_easy_init"),
                easy_cleanup: try library.address(of: "curl_easy_cleanup"),
                easy_setopt: try library.address(of: "curl_easy_setopt"),
                easy_perform: try library.address(of: "curl_easy_perform"),
                easy_getinfo: try library.address(of: "curl_easy_getinfo"),
                easy_strerror: try library.address(of: "curl_easy_strerror"))
        } catch {
            throw CurlError(error.description)
        }
        let api = UnsafeMutablePointer<loctrack_curl_api>.allocate(capacity: 1)
        api.initialize(to: table)
        let code = loctrack_curl_global_init(api, loctrack_curl_global_default)
        guard code == CURLE_OK else {
            throw CurlError("curl_global_init: " + String(cString: loctrack_curl_easy_strerror(api, code)))
        }
        return CurlLibrary(api: api)
    }
}

/// libcurl could not be loaded or set up: one line, libcurl's or the dynamic linker's words.
struct CurlError: Error, Sendable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
