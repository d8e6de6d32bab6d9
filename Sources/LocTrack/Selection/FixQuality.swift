extension Fix {
    /// How good a receiver's position is, as a class that can be ordered: gpsd's `status`
    /// numbers are not an order (RTK fixed is 3, DGPS 2, dead reckoning 5), so a selector
    /// that compared them would prefer dead reckoning to RTK.
    public enum QualityClass: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Dead reckoning alone: a position carried forward, the least trusted.
        case deadReckoning = 1
        /// GNSS helped by dead reckoning (a tunnel's entry, an urban canyon).
        case gnssWithDeadReckoning = 2
        /// A plain GNSS fix.
        case gnss = 3
        /// Differential corrections (SBAS, a DGPS station) or P(Y).
        case differential = 4
        /// RTK with float ambiguities: decimetres.
        case rtkFloat = 5
        /// RTK with fixed ambiguities: centimetres.
        case rtkFixed = 6

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .deadReckoning: "dead reckoning"
            case .gnssWithDeadReckoning: "GNSS+DR"
            case .gnss: "GNSS"
            case .differential: "DGPS"
            case .rtkFloat: "RTK float"
            case .rtkFixed: "RTK fixed"
            }
        }
    }

    /// The fix's quality class; nil when its status is no position to follow (time only, a
    /// simulation) or one loctrack does not know.
    public var qualityClass: QualityClass? {
        switch status {
        case .rtkFixed: .rtkFixed
        case .rtkFloat: .rtkFloat
        case .dgps, .pps: .differential
        case .gps: .gnss
        case .gnssDeadReckoning: .gnssWithDeadReckoning
        case .deadReckoning: .deadReckoning
        default: nil
        }
    }
}
