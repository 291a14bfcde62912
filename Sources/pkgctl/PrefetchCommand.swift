import PkgCommandLine
import ArgumentParser
import PkgCore

/// `pkgctl prefetch`: fetches URLs into the store's overlay ahead of use, for offline use.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Fetch custom-scheme URLs from the origin into the overlay, so they are answered offline.",
        discussion: """
            Each URL goes through the resolver as a GET: one a package or the overlay already answers \
            costs nothing; the others are fetched (from --upstream, else https://HOST) and written \
            through under the resolver's rules, images included. One line per URL, then a summary; \
            exit status 1 when any URL failed.

            update does the same after activating a release whose entry lists URLs to prefetch (pack --prefetch).

            Examples:
              # Fetch two files a page will need before the device goes offline:
              pkgctl prefetch app://www.example.com/app/img/banner.png \\
                app://www.example.com/app/js/chart.js
              # Fetch the URLs of a file, 4 at a time, within two minutes:
              pkgctl prefetch --from urls.txt --concurrency 4 --time-limit 120
            """)

    @OptionGroup var store: StoreOptions

    @OptionGroup var origin: OriginOptions

    @Argument(help: ArgumentHelp("Request URLs, e.g. app://www.example.com/app/img/a.png", valueName: "url"))
    var urls: [String] = []

    @Option(name: .customLong("from"), help: ArgumentHelp(
        "Also the URLs of this file: one a line; blank lines and lines starting with # are skipped.", valueName: "file"))
    var listFile: String?

    @Option(help: ArgumentHelp(
        "URLs fetched at once, 1 to \(Resolver.maximumPrefetchConcurrency).",
        valueName: "n"))
    var concurrency = Resolver.defaultPrefetchConcurrency

    @Option(name: .customLong("time-limit"), help: ArgumentHelp(
        "Seconds the whole prefetch may take; what is not done by then fails (default: no limit).", valueName: "seconds"))
    var timeLimit: Double?

    @Option(name: .customLong("header"), help: ArgumentHelp(
        "A request header every prefetch sends, 'Name: value' (repeatable): the web view's Accept, so an origin that "
            + "negotiates (Vary: Accept) stores what the web view will ask for; a Cookie.", valueName: "name: value"))
    var headers: [String] = []

    /// `--header` values as fields; nil for one that is not `Name: value` with a token name.
    private var headerFields: [(name: String, value: String)]? {
        var fields: [(name: String, value: String)] = []
        for text in headers {
            guard let colon = text.firstIndex(of: ":") else { return nil }
            let name = String(text[..<colon]), value = String(text[text.index(after: colon)...].drop { $0 == " " })
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }),
                  value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7f }) else { return nil }
            fields.append((name, value))
        }
        return fields
    }

    func validate() throws {
        if headerFields == nil {
            throw ValidationError("--header must be 'Name: value' with a token name and no control character")
        }
        guard (1...Resolver.maximumPrefetchConcurrency).contains(concurrency) else {
            throw ValidationError("--concurrency must be 1 to \(Resolver.maximumPrefetchConcurrency) (got \(concurrency))")
        }
        if let timeLimit, !(timeLimit > 0 && timeLimit.isFinite) {
            throw ValidationError("--time-limit must be a positive number of seconds")
        }
        guard !urls.isEmpty || listFile != nil else { throw ValidationError("name at least one URL, or --from FILE") }
    }

    func run() async throws {
        let store = try await self.store.packageStore()
        let listed = try reportingErrors { try listFile.map(PrefetchList.read) ?? [] }
        let resolver = try reportingErrors { try Resolver(store: store, configuration: origin.configuration) }
        defer { resolver.shutdown() }
        let bar = Output.stderrIsTerminal ? ProgressBar() : nil
        let results = resolver.prefetch(urls + listed, headers: headerFields ?? [], concurrency: concurrency,
                                        timeLimit: timeLimit) { progress in
            bar?.handle(progress)
        }
        bar?.clear()
        for result in results {
            let size = result.bytes > 0 && !result.outcome.isFailure ? " (\(result.bytes) bytes)" : ""
            print("\(result.url.escapedForMessage)  \(result.outcome)\(size)")
        }
        print(Self.summary(results))
        if results.contains(where: \.outcome.isFailure) { throw ExitCode(ExitStatus.failure) }
    }

    /// `prefetched 5 URLs: 2 fetched and kept (1234 bytes), 2 already there, 0 not kept, 1 failed`.
    static func summary(_ results: [PrefetchResult]) -> String {
        let kept = results.filter { $0.outcome == .kept }
        let there = results.count { $0.outcome.costNothing }
        let failed = results.count { $0.outcome.isFailure }
        let notKept = results.count - kept.count - there - failed
        return "prefetched \(results.count) URLs: \(kept.count) fetched and kept (\(kept.map(\.bytes).reduce(0, +)) bytes), "
            + "\(there) already there, \(notKept) not kept, \(failed) failed"
    }
}
