/// The whole contents of the file at `path` (`open(2)`, then `read(2)` until end of file).
package func readWholeFile(_ path: String) throws(Errno) -> [UInt8] {
    let file = try openFile(path, .readOnly)
    return try readToEnd(file.rawValue)
}
