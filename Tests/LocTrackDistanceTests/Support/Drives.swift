import LocTrackTestSupport
/// The generated drives the tests measure, each from a fixed seed.
enum Drives {
    /// An hour standing still, at 1 Hz.
    static func parkedHour() -> Trajectory {
        var path = Trajectory()
        path.stand(3600)
        return path
    }

    /// About half an hour on foot at 1.4 m/s: straight legs with turns between them, and
    /// stops at crossings.
    static func walk(seed: UInt64) -> Trajectory {
        var random = SplitMix64(seed: seed)
        var path = Trajectory()
        path.stand(60)
        for _ in 0..<8 {
            path.turn(by: random.uniform(-.pi / 2, .pi / 2))
            path.reach(1.4, acceleration: 0.5)
            path.cruise(random.uniform(60, 240), turn: random.uniform(-0.01, 0.01))
            path.stop(deceleration: 0.7)
            path.stand(random.uniform(20, 90))
        }
        path.stand(60)
        return path
    }

    /// Stop and go in a city: a dozen legs at 8 to 14 m/s between traffic lights.
    static func city(seed: UInt64) -> Trajectory {
        var random = SplitMix64(seed: seed)
        var path = Trajectory()
        path.stand(60)
        for _ in 0..<12 {
            path.turn(by: random.uniform(-.pi / 2, .pi / 2))
            path.reach(random.uniform(8, 14), acceleration: 1.5)
            path.cruise(random.uniform(20, 90), turn: random.uniform(-0.005, 0.005))
            path.stop(deceleration: 2)
            path.stand(random.uniform(15, 60))
        }
        path.stand(60)
        return path
    }

    /// A ride of some 40 minutes: legs at 4 to 9 m/s with turns, stops at lights.
    static func ride(seed: UInt64) -> Trajectory {
        var random = SplitMix64(seed: seed)
        var path = Trajectory()
        path.stand(60)
        for _ in 0..<10 {
            path.turn(by: random.uniform(-.pi / 2, .pi / 2))
            path.reach(random.uniform(4, 9), acceleration: 1)
            path.cruise(random.uniform(60, 240), turn: random.uniform(-0.01, 0.01))
            path.stop(deceleration: 1.5)
            path.stand(random.uniform(10, 60))
        }
        path.stand(120)
        return path
    }

    /// Twenty minutes on a highway at 30 m/s with gentle curves.
    static func highway(seed: UInt64) -> Trajectory {
        var random = SplitMix64(seed: seed)
        var path = Trajectory()
        path.stand(30)
        path.reach(30, acceleration: 1.5)
        for _ in 0..<4 { path.cruise(300, turn: random.uniform(-0.002, 0.002)) }
        path.stop(deceleration: 2)
        path.stand(30)
        return path
    }

    /// A receiver of the kind the drives are measured with: a metre or two of white noise on
    /// a wandering error of a few metres, speed within 0.1 m/s.
    static let typicalReceiver = Receiver(whiteNoise: 1.5, markovSigma: 3, markovSeconds: 60)
}
