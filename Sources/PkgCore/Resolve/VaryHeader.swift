/// What an origin's `Vary` field (RFC 9110 §12.5.5) says about reusing its answer: which
/// request headers selected this representation, for the overlay's write-through.
///
/// `Accept-Encoding` (and the validators) are left out of the list: a shared fetch does not
/// forward them (``UpstreamPlan/droppedFromSharedFetches``), so the origin answers every such
/// request with the same identity-coded bytes, which serve any client.
package enum VaryHeader: Equatable {
    /// No `Vary`, or only `Accept-Encoding`: one representation for every request.
    case none
    /// `Vary: *`, or a list past ``maximumFields`` or with a malformed name: the answer is
    /// for its own request only and is never written through.
    case any
    /// The request header names the answer varies on: lower case, sorted, distinct.
    case fields([String])

    /// Most header names a stored representation may be keyed by.
    package static let maximumFields = 8

    /// Reads every `Vary` field of `headers` (several fields are one list).
    package init(_ headers: [(name: String, value: String)]) {
        var names = Set<String>()
        for field in headers where asciiCaseInsensitiveEqual(field.name, "Vary") {
            for item in field.value.split(separator: ",") {
                let name = item.trimmingSpaces.lowercased()
                if name.isEmpty { continue }
                guard name != "*", name.utf8.count <= 64, name.utf8.allSatisfy(Self.isTokenByte) else {
                    self = .any
                    return
                }
                if !UpstreamPlan.droppedFromSharedFetches.contains(name) { names.insert(name) }
            }
        }
        if names.isEmpty {
            self = .none
        } else if names.count > Self.maximumFields {
            self = .any
        } else {
            self = .fields(names.sorted())
        }
    }

    /// The selecting values of `fields` in `headers` (RFC 9111 §4.1): for each name, its
    /// field lines joined by commas, each item trimmed. (`fields` never holds a header a
    /// shared fetch drops.) Lines `name:value`, in `fields`' order.
    package static func selectingValues(of fields: [String], in headers: [(name: String, value: String)]) -> String {
        var text = ""
        for name in fields {
            text += name + ":"
            var first = true
            for field in headers where asciiCaseInsensitiveEqual(field.name, name) {
                for item in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                    if !first { text += "," }
                    text += item.trimmingSpaces
                    first = false
                }
            }
            text += "\n"
        }
        return text
    }

    /// RFC 9110 `tchar`, lower-case letters only (names are folded first).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
