import FoundationEssentials
import FuzzSupport
import PkgCore

/// The two date parsers over the same text. `HTTPDate.parse` over If-Modified-Since,
/// If-Range and Retry-After values: a date that parses is formatted as an IMF-fixdate that
/// parses to the same second and formats to the same text; the formatted date has
/// IMF-fixdate's fixed shape. `InternetDate.parse` over the JSON documents' dates: a date that
/// parses is the whole second Foundation's `.iso8601` reading falls in (or ends at), and formats as 20
/// bytes ending in `Z` that parse to the same date.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = FuzzInput(data, size).text
    checkInternetDate(text)
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

func checkInternetDate(_ text: String) {
    guard let date = InternetDate.parse(text) else { return }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    var quoted = Data("[\"".utf8)
    quoted.append(contentsOf: text.utf8)
    quoted.append(contentsOf: "\"]".utf8)
    let foundation = try? decoder.decode([Date].self, from: quoted).first
    // Foundation keeps the fraction InternetDate drops (rounded to a Double: `.999999999` may reach the next second).
    let sameSecond = foundation.map { (0...1).contains($0.timeIntervalSince1970 - date.timeIntervalSince1970) } ?? false
    fuzzCheck(sameSecond, "\(text.debugDescription) reads as \(date.timeIntervalSince1970), "
              + "Foundation's .iso8601 as \(foundation.map { "\($0.timeIntervalSince1970)" } ?? "nothing")")
    let formatted = InternetDate.format(date)
    fuzzCheck(formatted.utf8.count == 20 && formatted.hasSuffix("Z") && InternetDate.parse(formatted) == date,
              "\(text.debugDescription) formats as \(formatted.debugDescription), which does not read back")
}

@main
enum FuzzHTTPDateMain {
    static func main() { runFuzzer(fuzzHTTPDate) }
}
