import Glibc

// The C library's byte searches, vectorised by glibc, for the line framers.

/// The first `byte` in the `count` bytes at `start`, or nil. The C function is `memchr(3)`.
package func findByte(_ start: UnsafeRawPointer, _ byte: Int32, _ count: Int) -> UnsafeMutableRawPointer? {
    memchr(start, byte, count)
}

/// Whether the `count` bytes at `first` and at `second` are equal. The C function is `memcmp(3)`.
package func bytesEqual(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, _ count: Int) -> Bool {
    memcmp(first, second, count) == 0
}

/// Copies the `count` bytes at `source` to `destination`; the two may overlap.
/// The C function is `memmove(3)`.
package func moveBytes(_ destination: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, _ count: Int) {
    memmove(destination, source, count)
}
