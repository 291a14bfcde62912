import FoundationEssentials
import FuzzSupport
import PkgCore

/// Response header lines as libcurl's header callback delivers them (each input line,
/// with its `\n`, is one call) through `ResponseHeaders.take`, then the values the
/// downloader reads: validators, Retry-After, Content-Range. A status line starts a new
/// head; a blank line completes a non-1xx head, after which only a status line changes
/// anything (trailers are ignored); field names hold no colon and values no surrounding
/// space or line end; a Retry-After wait is never negative or NaN. The head's `Vary` is read
/// as the overlay reads it (`VaryHeader`): a list of at most 8 distinct, sorted, lower-case
/// tokens that a shared fetch forwards, or "any" when it has `*`; its selecting values are one
/// line per name. Every field value, taken as an `Accept`, chooses an image variant only when
/// it names that variant's type.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let lines = FuzzInput(data, size).lines
    var head = ResponseHeaders()
    for (number, line) in lines.enumerated() {
        let before = head
        let delivered = String(line) + (number < lines.count - 1 ? "\n" : "")
        head.take(delivered)
        let text = line.hasSuffix("\r") ? line.dropLast() : line
        if text.hasPrefix("HTTP/") {
            fuzzCheck(head.fields.isEmpty && !head.isComplete, "status line \(text.debugDescription) keeps the head before it")
        } else if before.isComplete {
            fuzzCheck(head.isComplete && head.status == before.status && head.fields.count == before.fields.count,
                      "\(text.debugDescription) after a complete head changes it")
        }
        if head.isComplete { fuzzCheck(!(100..<200).contains(head.status), "a complete \(head.status) head") }
        fuzzCheck(head.fields.count <= number + 1, "\(head.fields.count) fields from \(number + 1) lines")
    }
    for field in head.fields {
        fuzzCheck(!field.name.contains(":") && !field.name.contains("\n"), "field name \(field.name.debugDescription)")
        fuzzCheck(!field.value.hasPrefix(" ") && !field.value.hasSuffix(" ") && !field.value.contains("\n"),
                  "field value \(field.value.debugDescription)")
        fuzzCheck(head[field.name] != nil, "\(field.name.debugDescription) is not found by name")
    }
    switch VaryHeader(head.fields) {
    case .none, .any: break
    case .fields(let names):
        fuzzCheck(!names.isEmpty && names.count <= VaryHeader.maximumFields && names == Array(Set(names)).sorted(),
                  "Vary names \(names)")
        for name in names {
            fuzzCheck(name == name.lowercased() && !name.isEmpty && name != "*" && !name.contains(",")
                      && name != "accept-encoding", "Vary name \(name.debugDescription)")
        }
        let values = VaryHeader.selectingValues(of: names, in: head.fields)
        fuzzCheck(values.split(separator: "\n", omittingEmptySubsequences: false).count == names.count + 1,
                  "selecting values \(values.debugDescription) for \(names)")
    }
    if head.fields.contains(where: { field in
        field.name.lowercased() == "vary"
            && field.value.split(separator: ",").contains { $0.filter { $0 != " " && $0 != "\t" } == "*" }
    }) {
        fuzzCheck(VaryHeader(head.fields) == .any, "a Vary with * is not any")
    }
    for field in head.fields {
        if let variant = ImageVariant.preferred(for: field.value, among: Set(ImageVariant.allCases)) {
            fuzzCheck(field.value.lowercased().contains(variant.mediaType), "\(field.value.debugDescription) chose \(variant)")
        }
    }
    if let wait = head.retryAfter(now: Date(timeIntervalSince1970: 1_800_000_000)) {
        fuzzCheck(wait >= 0 && !wait.isNaN, "Retry-After \(head["retry-after"]?.debugDescription ?? "") waits \(wait)")
    }
    if let start = head.contentRangeStart {
        fuzzCheck(head["content-range"]?.lowercased().hasPrefix("bytes ") == true, "Content-Range start \(start) without bytes")
    }
    return 0
}

@main
enum FuzzResponseHeadersMain {
    static func main() { runFuzzer(fuzzResponseHeaders) }
}
