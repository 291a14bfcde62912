import FuzzSupport
import PkgCore

/// A request URL (line 1), its Accept header (line 2) and method (line 3) split by
/// `ResourceRequest(url:)` and routed by the resolver over a fixture store
/// (`Resolver.plan(for:)`, `answerLocally`, `entryPath(forHost:)`): decoding,
/// classification, the route table, the package file or spaFallback, the overlay key.
/// The split parts hold no character that ends them; a refused path or query is
/// refused by the resolver too; a local file and an overlay path stay under their directory;
/// a routed package serves the host; nothing is fetched.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouting(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let lines = FuzzInput(data, size).lines
    guard let url = lines.first else { return 0 }
    var headers: [(name: String, value: String)] = []
    if lines.count > 1 { headers.append(("Accept", String(lines[1]))) }
    let method = lines.count > 2 ? String(lines[2]) : "GET"
    let request = ResourceRequest(url: String(url), method: method, headers: headers)
    checkSplit(request, url: String(url))

    let resolver = FixtureStore.resolver
    let decoded = try? RequestPath.decode(request.rawPath)
    let queryAccepted = (try? RequestPath.checkQuery(request.query)) != nil
    let plan: ResolutionPlan
    do {
        plan = try resolver.plan(for: request)
    } catch {
        fuzzCheck(decoded == nil || !queryAccepted,
                  "resolver refused \(url.debugDescription), whose path decodes and query is clean: \(error)")
        return 0
    }
    guard let path = decoded, queryAccepted else {
        fuzzCheck(false, "resolver planned \(url.debugDescription), whose path or query is refused")
        return 0
    }
    if let file = plan.localFile {
        fuzzCheck(plan.package != nil || plan.fromOverlay, "a local file without a package: \(file)")
        checkBeneath(file, FixtureStore.root + (plan.fromOverlay ? "/cache/" : "/packages/"), url)
    }
    if let overlay = plan.overlayPath { checkBeneath(overlay, FixtureStore.root + "/cache/", url) }
    if let package = plan.package {
        // A route names a host, or a host and port; a request's port is ignored for a route without one.
        let host = request.host
        // (Bytes, as the route table looks: the port is the digits after the last ':'.)
        var hostName = host
        if host.utf8.last != UInt8(ascii: "]"), let colon = host.utf8.lastIndex(of: UInt8(ascii: ":")),
           host.utf8[host.utf8.index(after: colon)...].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            hostName = String(decoding: host.utf8[..<colon], as: UTF8.self)
        }
        switch package {
        case "demo":
            fuzzCheck(plan.version == "1.0.0", "demo at version \(plan.version ?? "nil")")
            fuzzCheck(host == "static.example.com" || hostName == "static.example.com" || ((host == "www.example.com" || hostName == "www.example.com") && isUnder(path, "/app")),
                      "demo serves \(url.debugDescription)")
        case "docs":
            fuzzCheck(host == "localhost:8080" || hostName == "localhost:8080" || ((host == "www.example.com" || hostName == "www.example.com") && isUnder(path, "/app/docs")),
                      "docs serves \(url.debugDescription)")
        default:
            fuzzCheck(false, "unknown package \(package)")
        }
    }
    if let upstream = plan.upstreamURL {
        // The path and query go to the origin as the client sent them (raw UTF-8 included),
        // never with a control byte, nor a fragment, after the configured upstream.
        fuzzCheck(!upstream.utf8.contains { $0 < 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "#") }
                  && hasBytePrefix(upstream, "http://127.0.0.1:9/"), "upstream URL \(upstream.debugDescription)")
    }
    if let answer = try? resolver.answerLocally(request) {
        fuzzCheck([200, 206, 301, 304, 416].contains(answer.response.status), "local answer \(answer.response.status)")
        if answer.response.status == 301 {
            // A folder named without its slash: to the same path with the slash, on this host.
            let location = answer.response.header("Location") ?? ""
            var path = Substring(request.rawPath)
            while path.hasPrefix("//") { path = path.dropFirst() }
            fuzzCheck(answer.file == nil && hasBytePrefix(location, String(path) + "/") && !hasBytePrefix(location, "//")
                      && !location.utf8.contains { $0 < 0x20 || $0 == 0x7f }, "redirect of \(url.debugDescription) to \(location.debugDescription)")
        }
        fuzzCheck(answer.file == nil || answer.file?.path == plan.localFile, "answerLocally and plan name other files")
    }
    if let entry = resolver.entryPath(forHost: request.host) {
        fuzzCheck(entry.hasPrefix("/") && entry.hasSuffix("/"), "entry path \(entry.debugDescription)")
    }
    return 0
}

/// Whether the decoded `path` is `prefix` or below it by whole segments.
private func isUnder(_ path: String, _ prefix: String) -> Bool {
    path == prefix || hasBytePrefix(path, prefix + "/")
}

private func checkBeneath(_ path: String, _ directory: String, _ url: Substring) {
    fuzzCheck(hasBytePrefix(path, directory), "\(url.debugDescription) maps to \(path.debugDescription), not under \(directory)")
    for component in pathSegments(String(decoding: path.utf8.dropFirst(directory.utf8.count), as: UTF8.self)) {
        // An empty component (a doubled slash) is allowed: the filesystem reads it as one slash.
        fuzzCheck(component != ".." && component != "." && !component.contains("\0"),
                  "\(url.debugDescription) maps to \(path.debugDescription)")
    }
}

private func checkSplit(_ request: ResourceRequest, url: String) {
    func ends(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") }
    fuzzCheck(!request.host.utf8.contains { $0 == UInt8(ascii: "/") || ends($0) || $0 == UInt8(ascii: "@") }
              && !request.host.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") },
              "host \(request.host.debugDescription) of \(url.debugDescription)")
    fuzzCheck(!request.rawPath.utf8.contains(where: ends) && !request.rawPath.isEmpty,
              "path \(request.rawPath.debugDescription) of \(url.debugDescription)")
    fuzzCheck(!request.query.utf8.contains(UInt8(ascii: "#")), "query \(request.query.debugDescription) of \(url.debugDescription)")
    // Made again from its parts, the request splits the same.
    if hasBytePrefix(request.rawPath, "/"),
       let again = ResourceRequest(scheme: String(request.scheme), host: request.host,
                                   target: String(request.rawPath) + (request.query.isEmpty ? "" : "?" + request.query)) {
        fuzzCheck(again.rawPath == request.rawPath && again.query == request.query && again.host == request.host
                  && again.url == ResourceRequest(url: again.url).url,
                  "\(url.debugDescription) made again from its parts splits otherwise")
    }
}

@main
enum FuzzRoutingMain {
    static func main() { runFuzzer(fuzzRouting) }
}
