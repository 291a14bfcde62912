/// Orders version strings the way people expect: dot- or dash-separated parts,
/// numeric parts compared as numbers ("1.10.0" > "1.9.2"), other parts as text,
/// and a release above its pre-release ("1.0.0" > "1.0.0-beta").
public struct PackageVersion: Comparable, Sendable, CustomStringConvertible {
    /// The version as written in the manifest.
    public let text: String

    /// Wraps version text for comparison.
    public init(_ text: String) {
        self.text = text
    }

    /// The version text.
    public var description: String { text }

    /// Whether `lhs` is an older version than `rhs`.
    public static func < (lhs: PackageVersion, rhs: PackageVersion) -> Bool {
        compare(lhs.text, rhs.text) < 0
    }

    /// Whether both name the same version (`1.0` == `1.0.0`).
    public static func == (lhs: PackageVersion, rhs: PackageVersion) -> Bool {
        compare(lhs.text, rhs.text) == 0
    }

    private static func compare(_ a: String, _ b: String) -> Int {
        let (aRelease, aPre) = splitPreRelease(a)
        let (bRelease, bPre) = splitPreRelease(b)
        let order = compareParts(split(aRelease), split(bRelease))
        if order != 0 { return order }
        switch (aPre, bPre) {
        case (nil, nil): return 0
        case (nil, _): return 1
        case (_, nil): return -1
        case (let x?, let y?): return compareParts(split(x), split(y))
        }
    }

    private static func splitPreRelease(_ text: String) -> (String, String?) {
        let withoutBuild = text.split(separator: "+", maxSplits: 1).first.map(String.init) ?? text
        guard let dash = withoutBuild.firstIndex(of: "-") else { return (withoutBuild, nil) }
        return (String(withoutBuild[..<dash]), String(withoutBuild[withoutBuild.index(after: dash)...]))
    }

    private static func split(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == "_" })
    }

    private static func compareParts(_ a: [Substring], _ b: [Substring]) -> Int {
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : "0"
            let y = i < b.count ? b[i] : "0"
            let order = comparePart(x, y)
            if order != 0 { return order }
        }
        return 0
    }

    private static func comparePart(_ x: Substring, _ y: Substring) -> Int {
        let xNumeric = x.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
        let yNumeric = y.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
        switch (xNumeric, yNumeric) {
        case (true, true):
            let (a, b) = (x.trimmingLeadingZeros, y.trimmingLeadingZeros)
            if a.count != b.count { return a.count < b.count ? -1 : 1 }
            return a == b ? 0 : (a < b ? -1 : 1)
        case (true, false): return -1
        case (false, true): return 1
        case (false, false): return x == y ? 0 : (x < y ? -1 : 1)
        }
    }
}

extension Substring {
    fileprivate var trimmingLeadingZeros: Substring {
        let trimmed = drop(while: { $0 == "0" })
        return trimmed.isEmpty ? "0" : trimmed
    }
}
