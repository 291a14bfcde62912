import FuzzSupport
import NIOHTTP1
import PkgCore
import PkgServer

/// The preview server's request target (line 1: the URI of the request line, line 2:
/// the Host header, line 3: `--default-host`, empty for none) through
/// `RequestTarget.resourceRequest`, then the resolver's path decoding. Origin form needs
/// a host and keeps the target's path and query; absolute form takes its own host; the
/// host is lower case and holds no character that ends an authority; the scheme is the
/// server's. Every other form (`*`, authority form) names no resource. A Host field
/// `HostField` accepts holds no byte that would end or change an authority.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let lines = FuzzInput(data, size).lines
    guard let uri = lines.first.map(String.init) else { return 0 }
    var headers = HTTPHeaders()
    if lines.count > 1 { headers.add(name: "Host", value: String(lines[1])) }
    let defaultHost = lines.count > 2 && !lines[2].isEmpty ? String(lines[2]) : nil
    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: headers)
    if HostField.refusal(for: head) == nil, let host = headers.first(name: "Host") {
        fuzzCheck(!host.utf8.contains { "/?#@ \\".utf8.contains($0) || $0 < 0x21 || $0 >= 0x7f },
                  "Host \(host.debugDescription) accepted")
    }
    let request = RequestTarget.resourceRequest(for: head, body: [], scheme: "app", defaultHost: defaultHost)
    let lower = uri.lowercased()
    let isOriginForm = hasBytePrefix(uri, "/")
    let isAbsoluteForm = ["http://", "https://"].contains { scheme in
        hasBytePrefix(lower, scheme) && lower.utf8.dropFirst(scheme.utf8.count).first.map { $0 != UInt8(ascii: "/") } == true
    }
    guard let request else {
        let host = defaultHost ?? headers.first(name: "Host")
        fuzzCheck(!isAbsoluteForm && !(isOriginForm && host?.isEmpty == false),
                  "\(uri.debugDescription) (host \(host?.debugDescription ?? "nil")) names no resource")
        return 0
    }
    fuzzCheck(isOriginForm || isAbsoluteForm, "\(uri.debugDescription) is neither origin nor absolute form")
    fuzzCheck(request.scheme == "app", "scheme \(request.scheme.debugDescription) for \(uri.debugDescription)")
    fuzzCheck(!request.host.utf8.contains { "/?#@".utf8.contains($0) || ($0 >= 0x41 && $0 <= 0x5a) },
              "host \(request.host.debugDescription) for \(uri.debugDescription)")
    fuzzCheck(hasBytePrefix(request.rawPath, "/") || !isOriginForm, "path \(request.rawPath.debugDescription) for \(uri.debugDescription)")
    if isOriginForm, let host = defaultHost ?? headers.first(name: "Host"),
       !host.utf8.contains(where: { "/?#@".utf8.contains($0) }) {
        // Hosts are ASCII (IDNA); what a non-ASCII one becomes is left open.
        if host.utf8.allSatisfy({ $0 < 0x80 }) {
            fuzzCheck(request.host == host.lowercased(), "host \(request.host.debugDescription) for \(host.debugDescription)")
        }
        let target = String(decoding: uri.utf8.prefix { $0 != UInt8(ascii: "#") }, as: UTF8.self)
        let expected = request.query.isEmpty && !target.utf8.contains(UInt8(ascii: "?")) ? String(request.rawPath)
            : String(request.rawPath) + "?" + request.query
        fuzzCheck(expected == target, "\(uri.debugDescription) splits to \(request.rawPath.debugDescription) and \(request.query.debugDescription)")
    }
    if let decoded = try? RequestPath.decode(request.rawPath) {
        fuzzCheck(hasBytePrefix(decoded, "/") && !decoded.utf8.contains(0)
                  && !pathSegments(decoded).contains { $0 == ".." || $0 == "." },
                  "\(uri.debugDescription) decodes to \(decoded.debugDescription)")
    }
    return 0
}

@main
enum FuzzRequestTargetMain {
    static func main() { runFuzzer(fuzzRequestTarget) }
}
