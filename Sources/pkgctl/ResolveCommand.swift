import PkgCommandLine
import ArgumentParser
import Dispatch
import FoundationEssentials
import PkgCore

/// `pkgctl resolve`: what the resolver would do with one request, and optionally do it.
struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Show how a custom-scheme URL resolves: class, package, version, local file or upstream URL.",
        discussion: """
            Asks the resolver a web view's scheme handler embeds what it would do with one request, \
            without doing it: the request's class (html, script, style, image, other), the package and \
            version whose route holds it, the local file that answers it (from the package or the \
            overlay), or the upstream URL a miss goes to and where it would be written through.

            With --fetch, the request is made as the web view's would be, and its status and byte count \
            are printed; exits 1 when it fails or has no answer within 120 s. With --offline, it answers as \
            an app's offline resolver does: a request no package or cached answer holds goes to no origin \
            and, with --fetch, fails with the offline message (exit 1).

            Examples:
              # Which file answers the app's start page:
              pkgctl resolve app://www.example.com/app/index.html --accept text/html
              # Fetch a file the package lacks from a local origin:
              pkgctl resolve app://www.example.com/app/late.js \\
                --upstream http://127.0.0.1:8081 --fetch
              # What an app started with no network gets for it:
              pkgctl resolve app://www.example.com/app/late.js --offline --fetch
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: "The request URL, e.g. app://www.example.com/app/index.html")
    var url: String

    @Option(help: "Accept header of the request.")
    var accept: String?

    @Flag(help: "Answer as an offline app's resolver would: what no package or cached answer holds goes to no origin.")
    var offline = false

    @Option(help: "HTTP method.")
    var method: String = "GET"

    @OptionGroup var origin: OriginOptions

    @Flag(help: "Perform the request and print status and byte count.")
    var fetch = false

    func run() async throws {
        let store = try await self.store.packageStore(writes: fetch)
        let resolver = try reportingErrors { try Resolver(store: store, configuration: origin.configuration) }
        defer { resolver.shutdown() }
        let request = ResourceRequest(url: url, method: method.uppercased(),
                                      headers: accept.map { [("Accept", $0)] } ?? [])
        let plan = try reportingErrors { try resolver.plan(for: request) }
        print("class:    \(plan.resourceClass.rawValue)")
        print("package:  \(plan.package.map { "\($0) \(plan.version ?? "")" } ?? "-")")
        if let file = plan.localFile {
            print("local:    \(file)\(plan.fromOverlay ? " (overlay)" : "")")
        }
        if let upstreamURL = plan.upstreamURL, offline {
            print("offline:  in no package and no cached answer; the origin (\(upstreamURL)) is not asked")
        } else if let upstreamURL = plan.upstreamURL {
            print("upstream: \(upstreamURL)")
            print("overlay:  \(plan.overlayPath ?? "never written through")")
        }
        guard fetch else { return }
        if offline, plan.upstreamURL != nil {
            Output.printError(ResolutionPlan.offlineMiss(url: url))
            throw ExitCode.failure
        }
        let task = CommandTask(request)
        resolver.start(task)
        guard task.finished.wait(timeout: .now() + 120) == .success else {
            resolver.stop(task)
            Output.printError("\(url): no answer within 120 s")
            throw ExitCode.failure
        }
        if let error = task.error {
            Output.printError(error.message)
            throw ExitCode.failure
        }
        print("status:   \(task.status)")
        print("bytes:    \(task.bytes)")
    }

    /// Counts what the resolver delivers for `pkgctl resolve --fetch`.
    private final class CommandTask: ResourceTask, @unchecked Sendable {
        let request: ResourceRequest
        let finished = DispatchSemaphore(value: 0)
        var status = 0
        var bytes = 0
        var error: PkgError?

        init(_ request: ResourceRequest) { self.request = request }
        func didReceive(_ response: ResourceResponse) { status = response.status }
        func didReceive(_ data: UnsafeRawBufferPointer) { bytes += data.count }
        func didFinish() { finished.signal() }
        func didFail(_ error: PkgError) {
            self.error = error
            finished.signal()
        }
    }
}
