import FuzzSupport
import PkgCore

/// `HTTPDate.parse` over If-Modified-Since, If-Range and Retry-After values. A date
/// that parses is formatted as an IMF-fixdate that parses to the same second and
/// formats to the same text; the formatted date has IMF-fixdate's fixed shape.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = FuzzInput(data, size).text
    guard let seconds = HTTPDate.parse(text) else { return 0 }
    let formatted = HTTPDate.format(seconds)
    fuzzCheck(formatted.utf8.count == 29 && formatted.hasSuffix(" GMT"),
              "\(text.debugDescription) parses to \(seconds), formatted \(formatted.debugDescription): not an IMF-fixdate")
    let again = HTTPDate.parse(formatted)
    fuzzCheck(again == seconds, "\(text.debugDescription) parses to \(seconds), formatted \(formatted.debugDescription), "
              + "which parses to \(again.map(String.init) ?? "nil")")
    fuzzCheck(HTTPDate.format(again ?? seconds) == formatted, "\(formatted.debugDescription) does not format back to itself")
    return 0
}

@main
enum FuzzHTTPDateMain {
    static func main() { runFuzzer(fuzzHTTPDate) }
}
