import LocTrackTraccar
import Testing

@Suite("Traccar URL: the phone client's server URL and device id", .timeLimit(.minutes(1)))
struct TraccarURLTests {
    @Test("given the phone client's URL when parsed then host, port, device and the request prefix are as written")
    func phoneClientURL() throws {
        let url = try TraccarURL(parsing: "http://demo.traccar.org:5055/?id=123456")
        #expect(!url.usesTLS)
        #expect(url.host == "demo.traccar.org")
        #expect(url.port == 5055)
        #expect(url.deviceID == "123456")
        #expect(url.requestPrefix == "http://demo.traccar.org:5055/?")
        #expect(url.server == "demo.traccar.org:5055")
        #expect(url.description == "http://demo.traccar.org:5055/")
    }

    @Test("given https, an IPv6 host, no port, a path, a user and other parameters when parsed then all but the device stay in the prefix")
    func everythingElseIsKept() throws {
        let url = try TraccarURL(parsing: "HTTPS://me:secret@[::1]/osmand/?key=abc&deviceid=car%201&x=y")
        #expect(url.usesTLS)
        #expect(url.host == "::1")
        #expect(url.port == nil)
        #expect(url.deviceID == "car 1")
        #expect(url.otherParameters == "key=abc&x=y")
        #expect(url.requestPrefix == "https://me:secret@[::1]/osmand/?key=abc&x=y&")
        #expect(url.server == "[::1]:443")
        #expect(url.description == "https://[::1]/osmand/")
    }

    @Test("given device ids with reserved characters when naming the spool folder then each is one safe file name")
    func spoolFolderName() throws {
        #expect(try TraccarURL(parsing: "http://h:5055/?id=car1").spoolFolderName == "traccar-car1")
        #expect(try TraccarURL(parsing: "http://h:5055/?id=..%2Fetc%20x").spoolFolderName == "traccar-..%2Fetc%20x")
    }

    @Test("given no path when parsed then the path is /")
    func noPath() throws {
        let url = try TraccarURL(parsing: "http://10.0.0.2:5055?id=7")
        #expect(url.path == "/")
        #expect(url.requestPrefix == "http://10.0.0.2:5055/?")
    }

    @Test(
        "given a bad URL when parsed then it is refused with one line saying what is wrong",
        arguments: [
            ("ftp://host:5055/?id=1", TraccarURLError.unsupportedScheme, "the Traccar URL must start with http:// or https:// (http[s]://HOST[:PORT]/?id=DEVICE)"),
            ("host:5055/?id=1", .unsupportedScheme, "the Traccar URL must start with http:// or https:// (http[s]://HOST[:PORT]/?id=DEVICE)"),
            ("http://:5055/?id=1", .missingHost, "the Traccar URL has no host: http[s]://HOST[:PORT]/?id=DEVICE"),
            ("http:///?id=1", .missingHost, "the Traccar URL has no host: http[s]://HOST[:PORT]/?id=DEVICE"),
            ("http://bad host/?id=1", .invalidHost("bad host"), "the Traccar URL's host 'bad host' is not a name, an IPv4 address or an [IPv6] address"),
            ("http://host:0/?id=1", .invalidPort("0"), "the Traccar URL's port '0' is not a number from 1 to 65535"),
            ("http://host:65536/?id=1", .invalidPort("65536"), "the Traccar URL's port '65536' is not a number from 1 to 65535"),
            ("http://host:50a5/?id=1", .invalidPort("50a5"), "the Traccar URL's port '50a5' is not a number from 1 to 65535"),
            ("http://host:/?id=1", .invalidPort(""), "the Traccar URL's port '' is not a number from 1 to 65535"),
            ("http://host:5055/", .missingDevice, "the Traccar URL has no device identifier: http[s]://HOST[:PORT]/?id=DEVICE, with the identifier the device has in Traccar"),
            ("http://host:5055/?key=1", .missingDevice, "the Traccar URL has no device identifier: http[s]://HOST[:PORT]/?id=DEVICE, with the identifier the device has in Traccar"),
            ("http://host:5055/?id=", .emptyDevice, "the Traccar URL's device identifier (id=) is empty"),
            ("http://host:5055/?id", .emptyDevice, "the Traccar URL's device identifier (id=) is empty"),
            ("http://host:5055/?id=1&deviceid=2", .repeatedDevice, "the Traccar URL names the device more than once (id= or deviceid=)"),
            ("http://host:5055/?id=%zz", .invalidDevice("id=%zz"), "the Traccar URL's 'id=%zz' has a '%' not followed by two hex digits, or is not UTF-8"),
            ("http://host:5055/?id=1#top", .fragment, "the Traccar URL has a '#' fragment, which is never sent to the server"),
        ])
    func badURL(text: String, error: TraccarURLError, line: String) {
        #expect(throws: error) { try TraccarURL(parsing: text) }
        #expect(error.description == line)
        #expect(!line.contains("\n"))
    }
}
