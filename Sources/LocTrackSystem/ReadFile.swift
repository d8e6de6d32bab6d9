import Glibc

/// The whole contents of the file at `path` (read(2) until end of file).
package func readWholeFile(_ path: String) -> Result<[UInt8], Errno> {
    let descriptor = retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
    guard descriptor >= 0 else { return .failure(.current) }
    defer { close(descriptor) }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { buffer in
            retryingInterrupts { read(descriptor, buffer.baseAddress, buffer.count) }
        }
        if count < 0 { return .failure(.current) }
        if count == 0 { return .success(contents) }
        contents.append(contentsOf: chunk[..<count])
    }
}
