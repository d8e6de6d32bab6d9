import Foundation
import Glibc
import LocTrackTestSupport
import Testing

/// The ``Mosquitto`` harness itself, with the broker's own clients: what the publish
/// tests rely on (a persistent session survives a restart, TLS with the test CA, a
/// password file) is checked here without loctrack.
@Suite(
    "Mosquitto harness: a real broker per test",
    .enabled(if: Mosquitto.isAvailable, "needs mosquitto, mosquitto-clients and openssl (apt install mosquitto mosquitto-clients)"),
    .timeLimit(.minutes(1)))
struct MosquittoHarnessTests {
    private func id(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    @Test("given a broker and a subscriber on t/# when mosquitto_pub sends two messages then the subscriber gets both, in order, with their topics", .timeLimit(.minutes(1)))
    func publishAndReceive() async throws {
        try await withMosquitto { broker in
            let subscriber = try await broker.subscribe(topic: "t", clientID: id("sub"))
            let first = try await broker.publish(topic: "t", message: #"{"n":1}"#)
            let second = try await broker.publish(topic: "t/event", message: "two words")
            #expect(first.status == .exited(0) && second.status == .exited(0), "\(first)\n\(second)")
            try await subscriber.waitForMessages(count: 2)
            #expect(subscriber.messages == [
                Subscriber.Message(topic: "t", payload: #"{"n":1}"#),
                Subscriber.Message(topic: "t/event", payload: "two words"),
            ], "\(subscriber.report)")
            #expect(broker.publishes(from: "nobody").isEmpty)
        }
    }

    @Test("given a persistent QoS 1 subscriber when the broker restarts and a message is published before the subscriber is back then it gets the message once after reconnecting by itself", .timeLimit(.minutes(1)))
    func restartKeepsThePersistentSession() async throws {
        try await withMosquitto { broker in
            let subscriberID = id("sub")
            let subscriber = try await broker.subscribe(topic: "t", clientID: subscriberID)
            let port = broker.port
            // Frozen until the message is published, however long the restart takes: it cannot
            // reconnect before, so only its saved session can take the message.
            subscriber.pause()
            try await broker.stop()
            #expect(!Loopback.canConnect(port: port))
            try await broker.start()
            #expect(broker.port == port)
            let queued = try await broker.publish(topic: "t", message: "queued while away", clientID: "pub-right-after-restart")
            #expect(queued.status == .exited(0), "\(queued)")
            #expect(broker.log.filter { $0.contains("Received SUBSCRIBE from \(subscriberID)") }.count == 1,
                    "published before the subscriber was back: \(broker.logTail)")
            subscriber.resume()
            try await subscriber.waitForMessages(count: 1)
            try await subscriber.waitForSubscription(count: 2)  // it reconnected and subscribed again
            try await Task.sleep(for: .milliseconds(300))
            #expect(subscriber.messages == [Subscriber.Message(topic: "t", payload: "queued while away")], "\(subscriber.report)")
            #expect(broker.publishes(from: "pub-right-after-restart") == [
                Mosquitto.PublishRecord(duplicate: false, qos: 1, retain: false, topic: "t"),
            ], "\(broker.logTail)")
        }
    }

    @Test("given a broker restarted twice when a message is published while the subscriber is disconnected then the session saved by SIGTERM delivers it", .timeLimit(.minutes(1)))
    func sessionSurvivesWhileSubscriberIsAway() async throws {
        try await withMosquitto { broker in
            let subscriber = try await broker.subscribe(topic: "t", clientID: id("sub"))
            try await broker.restart()
            try await subscriber.waitForSubscription(count: 2)
            try await broker.restart()
            let published = try await broker.publish(topic: "t/a", message: "after two restarts")
            #expect(published.status == .exited(0), "\(published)")
            try await subscriber.waitForMessages(count: 1)
            #expect(subscriber.payloads(on: "t/a") == ["after two restarts"], "\(subscriber.report)")
        }
    }

    @Test("given a TLS listener with the test CA when mosquitto_pub connects with --cafile then the message arrives, and without it the handshake fails", .timeLimit(.minutes(1)))
    func tlsWithTheTestCA() async throws {
        try await withMosquitto(Mosquitto.Options(tls: true)) { broker in
            let subscriber = try await broker.subscribe(topics: ["t/#"], clientID: id("sub"), tls: true)
            let published = try await broker.publish(topic: "t", message: "over TLS", tls: true)
            #expect(published.status == .exited(0), "\(published)")
            try await subscriber.waitForMessages(count: 1)
            #expect(subscriber.payloads(on: "t") == ["over TLS"], "\(subscriber.report)")

            // The system CAs do not know the test CA.
            let untrusted = try await broker.publish(
                topic: "t", message: "must not arrive", tls: false, extra: ["-p", String(broker.tlsPort!), "--capath", "/etc/ssl/certs"])
            #expect(untrusted.status != .exited(0), "\(untrusted)")
            // mosquitto_pub 2.0.11 (Debian 12) names the TLS or certificate failure; 2.0.21 (Debian 13)
            // says only "Error: Protocol error".
            let said = untrusted.stderr.lowercased()
            #expect(["tls", "certificate", "protocol error"].contains(where: said.contains), "\(untrusted)")
            try await Task.sleep(for: .milliseconds(300))
            #expect(subscriber.messages.count == 1, "\(subscriber.report)")
        }
    }

    @Test("given a broker with a password file when a client logs in with the right and a wrong password then the first is let in and the second refused as not authorised", .timeLimit(.minutes(1)))
    func passwordFile() async throws {
        try await withMosquitto(Mosquitto.Options(users: ["alice": "s3cret"])) { broker in
            let subscriber = try await broker.subscribe(topic: "t", clientID: id("sub"), user: "alice", password: "s3cret")
            let right = try await broker.publish(topic: "t", message: "let in", user: "alice", password: "s3cret")
            let wrong = try await broker.publish(topic: "t", message: "refused", user: "alice", password: "guess")
            #expect(right.status == .exited(0), "\(right)")
            #expect(wrong.status != .exited(0), "\(wrong)")
            #expect(wrong.stderr.lowercased().contains("not authori"), "\(wrong)")
            try await subscriber.waitForMessages(count: 1)
            try await Task.sleep(for: .milliseconds(300))
            #expect(subscriber.payloads(on: "t") == ["let in"], "\(subscriber.report)")
        }
    }

    @Test("given a broker that is not started yet when started later then it listens on the port it was given", .timeLimit(.minutes(1)))
    func startsLater() async throws {
        try await withMosquitto(Mosquitto.Options(startsRunning: false)) { broker in
            #expect(!broker.isRunning)
            #expect(!Loopback.canConnect(port: broker.port))
            try await broker.start()
            #expect(broker.isRunning)
            #expect(Loopback.canConnect(port: broker.port))
            broker.kill()
            #expect(!broker.isRunning)
        }
    }
}
