internal import CMosquitto
import LocTrack
import LocTrackSpool
import LocTrackSystem

/// One libmosquitto client, driven by the thread that owns it: the only code that calls
/// libmosquitto, and the publisher's real ``MQTTTransport``. Not `Sendable`: it is made,
/// used and destroyed on the publisher's thread.
///
/// The publisher folds the client into its own `poll()` loop (``socket``, ``wantsWrite``,
/// ``exchangePackets()``) instead of libmosquitto's `loop_start` thread, so one thread
/// owns the network, the spool cursor and the shutdown. libmosquitto's callbacks
/// therefore run on that thread, inside those calls, and report into ``MQTTEvents``.
final class MQTTConnection: MQTTTransport {
    /// Where ``connect()`` goes.
    struct Target {
        var host: String
        var port: Int
        var keepAliveSeconds: Int32
    }

    private let handle: OpaquePointer
    private let target: Target
    /// The callbacks' target, reached through libmosquitto's userdata pointer. Retained
    /// by this object for the handle's whole life, so the pointer stays valid.
    private let box = CallbackBox()

    /// A client with a stable `clientID` and a persistent session (clean_session false):
    /// the broker keeps QoS 1/2 state across reconnects.
    init(clientID: String, target: Target, cleanSession: Bool = false) throws(MQTTError) {
        self.target = target
        _ = MosquittoLibrary.initialized
        guard let handle = mosquitto_new(clientID, cleanSession, Unmanaged.passUnretained(box).toOpaque()) else {
            throw MQTTError(call: "mosquitto_new", code: -1, errorNumber: Errno.current.code)
        }
        self.handle = handle
        mosquitto_connect_callback_set(handle) { _, userdata, code in
            CallbackBox.from(userdata)?.events.connackCodes.append(code)
        }
        mosquitto_publish_callback_set(handle) { _, userdata, mid in
            CallbackBox.from(userdata)?.events.published.append(mid)
        }
        mosquitto_disconnect_callback_set(handle) { _, userdata, code in
            CallbackBox.from(userdata)?.events.disconnects.append(code)
        }
        // libmosquitto says why a TLS handshake failed only in its log ("OpenSSL Error[0]:
        // error:0A000086:SSL routines::certificate verify failed"); its read then fails with
        // MOSQ_ERR_TLS (2.0.11) or with errno EPROTO (2.0.21), which say nothing of it.
        mosquitto_log_callback_set(handle) { _, userdata, _, text in
            guard let text, let box = CallbackBox.from(userdata) else { return }
            let line = String(cString: text)
            if line.hasPrefix("OpenSSL Error") { box.tlsProblem = box.tlsProblem ?? TLSProblem(logLine: line) }
        }
        mosquitto_message_callback_set(handle) { _, userdata, message in
            guard let message, let topic = message.pointee.topic else { return }
            let length = Int(message.pointee.payloadlen)
            let payload = length > 0 && message.pointee.payload != nil
                ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: length)) : []
            CallbackBox.from(userdata)?.events.messages.append(ReceivedMessage(topic: String(cString: topic), payload: payload))
        }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    // MARK: Before connecting

    func setCredentials(user: String?, password: String?) throws(MQTTError) {
        guard user != nil || password != nil else { return }
        try check(mosquitto_username_pw_set(handle, user, password), "mosquitto_username_pw_set")
    }

    /// TLS, verifying the broker against `caFile`, or the system's CAs when nil.
    func enableTLS(caFile: String?) throws(MQTTError) {
        if let caFile {
            try check(mosquitto_tls_set(handle, caFile, nil, nil, nil, nil), "mosquitto_tls_set")
        } else {
            try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "mosquitto_int_option(TLS_USE_OS_CERTS)")
        }
    }

    /// The message the broker publishes for this client when it goes away unannounced.
    func setWill(topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws(MQTTError) {
        try check(mosquitto_will_set(handle, topic, Int32(payload.count), payload, qos, retain), "mosquitto_will_set")
    }

    /// How many QoS 1/2 messages may wait for the broker's acknowledgement at once.
    func setMaximumInflight(_ count: Int) throws(MQTTError) {
        try check(mosquitto_max_inflight_messages_set(handle, UInt32(count)), "mosquitto_max_inflight_messages_set")
    }

    // MARK: Connection

    /// Starts connecting: a non-blocking TCP connect (the name is resolved first, which
    /// can block), completed by ``writePackets()`` when the socket becomes writable; then
    /// CONNECT goes out and the CONNACK arrives through ``readPackets()``. So a broker that
    /// does not answer never holds the thread: a stop is honoured at once.
    func connect() throws(MQTTError) {
        try check(
            mosquitto_connect_async(handle, target.host, Int32(target.port), target.keepAliveSeconds), "connect")
    }

    /// Connects again with the same session (also non-blocking); QoS 1/2 messages still
    /// unacknowledged are sent again.
    func reconnect() throws(MQTTError) {
        try check(mosquitto_reconnect_async(handle), "reconnect")
    }

    func disconnect() {
        _ = mosquitto_disconnect(handle)
    }

    /// Queues a message; returns its message id.
    func publish(_ message: SpoolMessage) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        try check(
            mosquitto_publish(
                handle, &mid, message.topic, Int32(message.payload.count), message.payload, Int32(message.qos),
                message.retain),
            "publish")
        return mid
    }

    func subscribe(_ topic: String) throws(MQTTError) {
        try check(mosquitto_subscribe(handle, nil, topic, 1), "subscribe")
    }

    // MARK: The network loop, one step at a time

    /// The connection's socket, or -1 when there is none.
    var socket: Int32 { mosquitto_socket(handle) }

    /// Whether libmosquitto has bytes waiting to be written.
    var wantsWrite: Bool { mosquitto_want_write(handle) }

    /// Reads what arrived, writes what is queued, then keep-alive pings and retries
    /// (which want a call at least once a second). Nothing while there is no socket.
    func exchangePackets() throws(MQTTError) {
        guard socket >= 0 else { return }
        try check(mosquitto_loop_read(handle, 64), "read")
        if wantsWrite { try check(mosquitto_loop_write(handle, 64), "write") }
        try check(mosquitto_loop_misc(handle), "keep-alive")
    }

    func writePendingPackets() {
        _ = mosquitto_loop_write(handle, 64)
    }

    /// What the callbacks reported since the last call.
    func takeEvents() -> MQTTEvents {
        defer { box.events = MQTTEvents() }
        return box.events
    }

    private func check(_ code: Int32, _ call: String) throws(MQTTError) {
        guard code != loctrack_mosquitto_success else {
            box.tlsProblem = nil
            return
        }
        let errorNumber = code == MOSQ_ERR_ERRNO.rawValue ? Errno.current.code : nil
        defer { box.tlsProblem = nil }
        throw MQTTError(call: call, code: code, errorNumber: errorNumber, tlsProblem: box.tlsProblem)
    }

    /// Text for a CONNACK return code (libmosquitto's `mosquitto_connack_string`).
    static func connackText(_ code: Int32) -> String {
        String(cString: mosquitto_connack_string(code))
    }
}

/// Where libmosquitto's callbacks put what they report (see ``MQTTConnection``).
private final class CallbackBox {
    var events = MQTTEvents()
    /// The first OpenSSL error libmosquitto logged since the last call returned.
    var tlsProblem: TLSProblem?

    static func from(_ userdata: UnsafeMutableRawPointer?) -> CallbackBox? {
        userdata.map { Unmanaged<CallbackBox>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// A libmosquitto call that failed: its return code, and `errno` where it says so.
struct MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    let call: String
    let code: Int32
    let errorNumber: Int32?
    /// What OpenSSL said when the call failed in TLS.
    var tlsProblem: TLSProblem? = nil

    /// The TLS handshake or a TLS read or write failed (libmosquitto's `MOSQ_ERR_TLS`, or
    /// an error OpenSSL logged).
    var isTLSFailure: Bool { code == MOSQ_ERR_TLS.rawValue || tlsProblem != nil }

    var description: String {
        if let tlsProblem { return "\(call): TLS: \(tlsProblem.reason)" }
        if let errorNumber, errorNumber != 0 { return "\(call): \(Errno(code: errorNumber))" }
        return code < 0 ? "\(call) failed" : "\(call): \(String(cString: mosquitto_strerror(code)))"
    }
}

/// OpenSSL's reason from one of libmosquitto's log lines, "OpenSSL Error[0]:
/// error:0A000086:SSL routines::certificate verify failed": the text after its last colon.
struct TLSProblem: Sendable, Hashable {
    let reason: String

    init(logLine: String) {
        let tail = logLine.split(separator: ":", omittingEmptySubsequences: true).last.map(String.init) ?? logLine
        let trimmed = tail.drop { $0 == " " }
        reason = trimmed.isEmpty ? logLine : String(trimmed)
    }
}
