package import LocTrack

/// The rule every track format follows (GPX segments, the track writer's segments, the
/// page's track, Home Assistant's held-back position): which statuses end a track.
extension GPSDStatus {
    /// Whether fixes after this are not one continuous track with those before.
    package var breaksTrack: Bool {
        switch self {
        case .waiting, .deviceLost, .noFixes, .fixLost: true
        default: false
        }
    }
}
