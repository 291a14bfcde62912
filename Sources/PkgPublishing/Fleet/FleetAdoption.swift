import PkgCore

/// Devices on each release over time, in buckets of one width: what ``FleetTimeline`` gives.
public struct FleetAdoption: Sendable, Hashable {
    /// One release's devices per bucket.
    public struct Series: Sendable, Hashable {
        /// The channel.
        public var channel: FleetChannel
        /// The package.
        public var package: String
        /// Its version.
        public var release: String
        /// Devices running it at the end of each bucket.
        public var devices: [Int]
        /// Devices running it at the end of the last bucket.
        public var now: Int { devices.last ?? 0 }
    }

    /// The start of the first bucket, in seconds since 1970.
    public var start: Double
    /// The width of a bucket, in seconds.
    public var width: Double
    /// How many buckets.
    public var buckets: Int
    /// The series, by package then version.
    public var series: [Series]

    /// The series of `release` of `package` in `channel`, if any report moved a device to or from it.
    public func series(_ channel: FleetChannel, _ package: String, _ release: String) -> Series? {
        series.first { $0.channel == channel && $0.package == package && $0.release == release }
    }

    /// The end of bucket `index`, in seconds since 1970.
    public func end(of index: Int) -> Double { start + Double(index + 1) * width }
}
