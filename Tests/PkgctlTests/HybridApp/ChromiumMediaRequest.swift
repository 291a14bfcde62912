import Foundation

/// One request for `big.webm` as a Chromium host logs it (`Examples/HybridAppQt`,
/// `Examples/HybridAppPyQt`): `hybrid-app: GET URL STATUS [CLASS SOURCE] BYTESB range=RANGE (NOTE)`,
/// STATUS `-` and BYTES `-` for a request stopped before its head. Qt answers a Range itself
/// from the host's device, so the host's log shows the resolver's answer and the bytes that
/// crossed the scheme, not Qt's.
struct ChromiumMediaRequest: CustomStringConvertible {
    /// The request's `Range` (empty: none), the resolver's status (0: none yet) and the body
    /// bytes the resolver delivered to the host.
    var range: String
    var status: Int
    var delivered: Int

    var description: String { "\(range.isEmpty ? "-" : range) \(status) \(delivered)B" }

    static func parse(_ log: [String]) -> [ChromiumMediaRequest] {
        log.filter { $0.hasPrefix("hybrid-app: GET ") && $0.contains("/big.webm ") }.map { line in
            let fields = line.split(separator: " ").map(String.init)
            let bytes = fields.first { $0.hasSuffix("B") && Int($0.dropLast()) != nil }.flatMap { Int($0.dropLast()) }
            let range = fields.first { $0.hasPrefix("range=") }.map { String($0.dropFirst(6)) }
            return ChromiumMediaRequest(range: range ?? "", status: Int(fields[3]) ?? 0, delivered: bytes ?? 0)
        }
    }

    /// The first byte its `Range` asks for (`bytes=FIRST-…`); nil for none or a suffix range.
    var first: Int? {
        guard range.hasPrefix("bytes=") else { return nil }
        return range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false).first.flatMap { Int($0) }
    }
}
