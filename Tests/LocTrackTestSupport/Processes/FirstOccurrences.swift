
extension Array where Element: Hashable {
    /// The elements in the order of their first occurrence.
    package var firstOccurrences: [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
