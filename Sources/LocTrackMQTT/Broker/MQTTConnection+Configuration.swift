extension MQTTConnection {
    /// A client set up as `configuration` says: credentials, TLS, the will, and the same
    /// in-flight window as the publisher's (libmosquitto would queue anything beyond it).
    convenience init(_ configuration: PublisherConfiguration) throws(MQTTError) {
        let target = Target(
            host: configuration.broker.host, port: configuration.broker.port,
            keepAliveSeconds: configuration.keepAliveSeconds)
        try self.init(clientID: configuration.clientID, target: target)
        try setCredentials(user: configuration.broker.user, password: configuration.password)
        if configuration.broker.usesTLS { try enableTLS(caFile: configuration.caFile) }
        if let will = configuration.will {
            try setWill(topic: will.topic, payload: will.payload, qos: Int32(configuration.qos), retain: will.retain)
        }
        try setMaximumInflight(configuration.maximumInflight)
    }
}
