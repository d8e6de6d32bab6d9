import Foundation

/// A unique MQTT client id for a test's subscriber.
package func subscriberID(_ name: String) -> String { "sub-\(name)-\(UUID().uuidString.prefix(8))" }
