import Foundation

/// The broker's files: its config, a password file, a throwaway CA and server certificate.
extension Mosquitto {
    func writeConfig() async throws {
        let path = directory.path
        var config = """
            # loctrack test broker
            user root
            per_listener_settings false
            persistence true
            persistence_location \(path)/data/
            autosave_interval 1
            log_dest file \(logFile)
            log_type all
            connection_messages true
            listener \(port) 127.0.0.1

            """
        if let users = options.users {
            let passwords = directory.appendingPathComponent("passwords").path
            try users.map { "\($0.key):\($0.value)\n" }.joined().write(toFile: passwords, atomically: true, encoding: .utf8)
            try await runTool("/usr/bin/mosquitto_passwd", ["-U", passwords])
            config += "allow_anonymous false\npassword_file \(passwords)\n"
        } else {
            config += "allow_anonymous true\n"
        }
        if let tlsPort {
            try await makeCertificates()
            config += """
                listener \(tlsPort) 127.0.0.1
                cafile \(caFile)
                certfile \(path)/server.pem
                keyfile \(path)/server.key

                """
        }
        try config.write(toFile: configFile, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
    }

    /// A throwaway CA and a server certificate it signed for `localhost` and `127.0.0.1` (P-256, one day).
    func makeCertificates() async throws {
        let path = directory.path
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await runTool("/usr/bin/openssl", ["req", "-x509"] + key + [
            "-keyout", "\(path)/ca.key", "-out", caFile, "-days", "1", "-subj", "/CN=loctrack test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try await runTool("/usr/bin/openssl", ["req", "-new"] + key + [
            "-keyout", "\(path)/server.key", "-out", "\(path)/server.csr", "-subj", "/CN=localhost",
        ])
        let extensions = "\(path)/server.ext"
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        try await runTool("/usr/bin/openssl", [
            "x509", "-req", "-in", "\(path)/server.csr", "-CA", caFile, "-CAkey", "\(path)/ca.key", "-CAcreateserial",
            "-out", "\(path)/server.pem", "-days", "1", "-extfile", extensions,
        ])
    }

    /// Runs a tool to its end; throws with its output unless it exits 0.
    func runTool(_ executable: String, _ arguments: [String]) async throws {
        let process = try ChildProcess(
            executable: executable, arguments: [executable] + arguments, stdin: .null, stdout: .pipe, stderr: .pipe, newProcessGroup: true)
        let result = try await process.result(timeLimit: .seconds(20))
        guard result.status == .exited(0) else {
            throw HarnessError("\(executable) \(arguments.joined(separator: " ")): \(result.status)\n\(result.stdout)\(result.stderr)")
        }
    }
}
