internal import CCurl
import LocTrackSystem

/// The real ``HTTPTransport``: one libcurl easy handle, reused for every request, so its
/// connection is kept alive between them (one connection, one request at a time: Traccar
/// stores positions in the order they arrive). Each request is the OsmAnd protocol's GET
/// with the position in the query, as Traccar's phone client sends it: HTTP/1.1, no body,
/// so no `Expect` and no `Content-Type` (a JSON one would select another decoder).
///
/// TLS is libcurl's (OpenSSL) with the system's CA store, or `--cafile`; proxies are
/// libcurl's too (`http_proxy`, `https_proxy`, `no_proxy`). Time limits: 10 s to connect,
/// 30 s for a request in all. A request under way when the uplink's stop deadline passes
/// is cut short (libcurl's progress callback, about once a second when idle).
///
/// Used by the uplink's thread only. libcurl's calls are made with `CURLOPT_NOSIGNAL`, so
/// its time limits use no signals in a threaded program.
final class CurlTransport: HTTPTransport {
    private let library: CurlLibrary
    private let handle: UnsafeMutableRawPointer
    /// The URL up to the position's query (``TraccarURL/requestPrefix``).
    private let prefix: [UInt8]
    /// Where libcurl writes a failure's details (`CURLOPT_ERRORBUFFER`).
    private let errorText: UnsafeMutablePointer<CChar>
    /// Held for the progress callback, which gets it unretained.
    private let stopDeadline: StopDeadline
    /// The request's URL, NUL-terminated, reused.
    private var url: [UInt8] = []

    init(library: CurlLibrary, configuration: TraccarUplinkConfiguration, stopDeadline: StopDeadline) throws(CurlError) {
        guard let handle = loctrack_curl_easy_init(library.api) else { throw CurlError("curl_easy_init failed (out of memory?)") }
        self.library = library
        self.handle = handle
        self.prefix = Array(configuration.url.requestPrefix.utf8)
        self.stopDeadline = stopDeadline
        errorText = .allocate(capacity: Int(loctrack_curl_error_size))
        errorText.initialize(repeating: 0, count: Int(loctrack_curl_error_size))
        try configure(configuration)
    }

    deinit {
        loctrack_curl_easy_cleanup(library.api, handle)
        errorText.deallocate()
    }

    private func configure(_ configuration: TraccarUplinkConfiguration) throws(CurlError) {
        let api = library.api
        try check(loctrack_curl_easy_setopt_long(api, handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(loctrack_curl_easy_setopt_long(api, handle, CURLOPT_HTTPGET, 1), "CURLOPT_HTTPGET")
        try check(
            loctrack_curl_easy_setopt_long(api, handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1)), "CURLOPT_HTTP_VERSION")
        try check(
            loctrack_curl_easy_setopt_long(api, handle, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout.milliseconds)),
            "CURLOPT_CONNECTTIMEOUT_MS")
        try check(
            loctrack_curl_easy_setopt_long(api, handle, CURLOPT_TIMEOUT_MS, Int(configuration.requestTimeout.milliseconds)),
            "CURLOPT_TIMEOUT_MS")
        try check(loctrack_curl_easy_setopt_pointer(api, handle, CURLOPT_USERAGENT, configuration.userAgent), "CURLOPT_USERAGENT")
        if let caFile = configuration.caFile {
            try check(loctrack_curl_easy_setopt_pointer(api, handle, CURLOPT_CAINFO, caFile), "CURLOPT_CAINFO")
        }
        try check(loctrack_curl_easy_setopt_pointer(api, handle, CURLOPT_ERRORBUFFER, errorText), "CURLOPT_ERRORBUFFER")
        // Traccar's reply is empty, or the text of a command queued for the device, which
        // loctrack does not carry out: read and dropped (libcurl's default writes it to stdout).
        try check(loctrack_curl_easy_setopt_write_function(api, handle) { _, size, count, _ in size * count }, "CURLOPT_WRITEFUNCTION")
        try check(
            loctrack_curl_easy_setopt_progress_function(api, handle) { context, _, _, _, _ in
                let stop = Unmanaged<StopDeadline>.fromOpaque(context!).takeUnretainedValue()
                return Monotonic.milliseconds >= stop.milliseconds ? 1 : 0
            }, "CURLOPT_XFERINFOFUNCTION")
        try check(
            loctrack_curl_easy_setopt_pointer(api, handle, CURLOPT_XFERINFODATA, Unmanaged.passUnretained(stopDeadline).toOpaque()),
            "CURLOPT_XFERINFODATA")
        try check(loctrack_curl_easy_setopt_long(api, handle, CURLOPT_NOPROGRESS, 0), "CURLOPT_NOPROGRESS")
    }

    /// An option libcurl refused (an old libcurl without it, or out of memory).
    private func check(_ code: CURLcode, _ option: String) throws(CurlError) {
        guard code == CURLE_OK else { throw CurlError("\(option): \(text(of: code))") }
    }

    private func text(of code: CURLcode) -> String {
        String(cString: loctrack_curl_easy_strerror(library.api, code))
    }

    func send(query: [UInt8]) -> HTTPOutcome {
        let api = library.api
        url.removeAll(keepingCapacity: true)
        url.append(contentsOf: prefix)
        url.append(contentsOf: query)
        url.append(0)
        errorText[0] = 0
        let set = url.withUnsafeBytes { loctrack_curl_easy_setopt_pointer(api, handle, CURLOPT_URL, $0.baseAddress) }
        guard set == CURLE_OK else { return .failed(HTTPFailure(.notSent, reason: "CURLOPT_URL: \(text(of: set))")) }
        let code = loctrack_curl_easy_perform(api, handle)
        if code == CURLE_OK {
            var status = 0
            _ = loctrack_curl_easy_getinfo_long(api, handle, CURLINFO_RESPONSE_CODE, &status)
            return .reply(status: status)
        }
        // Whether the request left: libcurl counts the bytes of the request it sent.
        var sent = 0
        _ = loctrack_curl_easy_getinfo_long(api, handle, CURLINFO_REQUEST_SIZE, &sent)
        let reason: String
        if code == CURLE_ABORTED_BY_CALLBACK {
            reason = "the uplink is stopping"
        } else if errorText[0] != 0 {
            reason = String(cString: errorText)
        } else {
            reason = text(of: code)
        }
        return .failed(HTTPFailure(sent > 0 ? .noReply : .notSent, reason: reason))
    }
}
