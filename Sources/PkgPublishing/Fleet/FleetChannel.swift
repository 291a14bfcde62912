/// The channel an outcome report came to: the path a device's report request had before
/// `/report/v1`. A device sends its reports next to the manifest it polls, so a publisher
/// that publishes each channel to a folder of its own (`/prod/`, `/staging/`) reads each
/// channel's reports apart: `/prod/report/v1?…` is channel `prod`, `/report/v1?…` the root
/// channel (named `/`).
public struct FleetChannel: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The path between the origin's root and `/report/v1`, without slashes at its ends; empty
    /// for the root.
    public let name: String

    /// The channel `name` (`prod`, `/prod`, `/prod/` and `apps/prod` are read alike; `/` or
    /// the empty string is the root).
    public init(_ name: some StringProtocol) {
        self.name = String(name.drop { $0 == "/" }.reversed().drop { $0 == "/" }.reversed())
    }

    /// The channel of a report request whose path before `/report/v1` is `path`: an origin-form
    /// path (`/prod`), or an absolute-form target (`https://cdn.example/prod`).
    init(path: UnsafeBufferPointer<UInt8>) {
        var text = Substring(String(decoding: path, as: UTF8.self))
        // `scheme://authority/path`: the path; a path that is only a scheme's tail stays as it is.
        if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://"), !text[..<colon].contains("/") {
            text = text[colon...].dropFirst(3).drop { $0 != "/" }
        }
        self.init(text)
    }

    /// `/prod`, or `/` for the root.
    public var description: String { "/" + name }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.name < rhs.name }
}
