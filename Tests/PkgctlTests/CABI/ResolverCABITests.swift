import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The resolver through its C ABI: `Tests/CHost/resolver_host.c`, a plain C host, is compiled
/// against `pkgctl/resolver.h` and `libpkgctl-resolver` with the flags of the pkg-config file
/// `scripts/pkgctl-resolver.pc.in` (filled in for this build), and drives the resolver from a
/// poll loop on its descriptor: local hits, an origin fallback written through (nginx), offline
/// misses, and stop storms from two threads with no callback after a stop. Under a sanitizer
/// run the host is built with the same sanitizer, so its reports join the suite's.
@Suite(.serialized) struct ResolverCABITests {
    let temp: TemporaryDirectory
    let sandbox: ResolveSandbox

    init() throws {
        temp = try TemporaryDirectory()
        sandbox = try ResolveSandbox()
        try sandbox.install("demo", "1.0.0", routes: ["www.example.com/app"], files: [
            "index.html": Array("<!doctype html><title>demo</title>".utf8),
            "js/app.js": Array(repeating: UInt8(ascii: "x"), count: 300_000),
        ])
    }

    /// The library built with AddressSanitizer and UndefinedBehaviorSanitizer, which
    /// `scripts/test` builds (`swift build --sanitize=address --sanitize=undefined`) and names
    /// in `PKGCTL_RESOLVER_ASAN_LIBRARY`.
    static let sanitizedLibrary = ProcessInfo.processInfo.environment["PKGCTL_RESOLVER_ASAN_LIBRARY"] ?? ""

    /// Where the host finds the library at run time, as installed: `libpkgctl-resolver.so` and
    /// its SONAME `.so.0` beside it, in the prefix `temp` (`buildHost`).
    var lib: String { temp.path("lib") }

    /// Compiles `source` (default: the C host) through pkg-config against `library` (default: this
    /// build's), laid out as installed in `prefix` (default: `temp`; the library in PREFIX/lib) by
    /// `scripts/lib/resolver-dev-prefix`; returns the executable's path. `sanitizer`: the flags
    /// of a sanitized host, built by the toolchain's clang (default: this run's sanitizer, as an
    /// instrumented library needs).
    func buildHost(_ source: String = BundleFixtures.repository + "/Tests/CHost/resolver_host.c",
                   warnings: [String] = ["-Wall", "-Wextra", "-Werror"],
                   library: String = PkgctlProcess.buildFolder + "/libpkgctl-resolver.so", prefix: String? = nil,
                   sanitizer: [String]? = nil) throws -> String {
        let prefix = prefix ?? temp.path
        try PackagingCommand.require(BundleFixtures.repository + "/scripts/lib/resolver-dev-prefix",
                                     [URL(fileURLWithPath: library).deletingLastPathComponent().path, prefix])
        let lib = prefix + "/lib"
        let flags = try PackagingCommand.run("/usr/bin/pkg-config", ["--cflags", "--libs", "pkgctl-resolver"],
                                 environment: ["PKG_CONFIG_PATH": lib + "/pkgconfig"])
        #expect(flags.status == 0, "\(flags.stderr)")
        let sanitizer = try sanitizer ?? Self.sanitizerFlags()
        let compiler = sanitizer.isEmpty ? "/usr/bin/cc" : try Self.toolchainBin() + "/clang"
        let host = lib + "/" + URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        let built = try PackagingCommand.run(compiler, ["-std=c11", "-pthread", "-o", host, source] + warnings
                                 + sanitizer
                                 + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(built.status == 0, "\(built.stderr)")
        return host
    }

    /// The flags that build the host with this test run's sanitizer, if any: the toolchain's
    /// runtime, which also intercepts libdispatch and so needs it and BlocksRuntime linked.
    static func sanitizerFlags() throws -> [String] {
        let name = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil ? "thread"
            : dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil ? "address" : nil
        guard let name else { return [] }
        let runtime = try toolchainBin() + "/../lib/swift/linux"
        return ["-fsanitize=\(name)", "-L" + runtime, "-ldispatch", "-lBlocksRuntime", "-Wl,-rpath," + runtime]
    }

    /// The `bin` folder of the Swift toolchain on `PATH` (its clang builds sanitized C).
    static func toolchainBin() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/swift") {
            let swift = URL(fileURLWithPath: "\(folder)/swift").resolvingSymlinksInPath()
            return swift.deletingLastPathComponent().path
        }
        throw TestSupportError("no swift on PATH (\(path.prefix(200)))")
    }

    /// Runs the host with the library folder on its search path.
    func runHost(_ host: String, _ arguments: [String], environment: [String: String] = [:]) throws -> PackagingCommand.Result {
        try PackagingCommand.run(host, arguments, environment: ["LD_LIBRARY_PATH": lib].merging(environment) { $1 })
    }

    @Test func aCHostGetsLocalFilesAndOriginAnswersWrittenThrough() throws {
        let host = try buildHost()
        let originRoot = try temp.makeDirectory("origin")
        try FileManager.default.createDirectory(atPath: originRoot + "/app/img", withIntermediateDirectories: true)
        try Data(Array("console.log('from the origin')".utf8)).write(to: URL(fileURLWithPath: originRoot + "/app/late.js"))
        let origin = try NginxOrigin(root: originRoot, accessLog: true)

        let run = try runHost(host, [sandbox.root, origin.baseURL, "get", "app://www.example.com/app/index.html",
                                      "app://www.example.com/app/late.js", "app://www.example.com/app/missing.js",
                                      "app://www.example.com/%2e%2e/etc/passwd"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(run.stdout)")
        guard lines.count == 5 else { return }
        #expect(lines[0] == "app://www.example.com/app/index.html status=200 bytes=34 type=text/html; charset=utf-8 result=0")
        #expect(lines[1].hasPrefix("app://www.example.com/app/late.js status=200 bytes=30 ") && lines[1].hasSuffix(" result=0"))
        #expect(lines[2].hasPrefix("app://www.example.com/app/missing.js status=404 ") && lines[2].hasSuffix(" result=0"))
        #expect(lines[3].contains("status=0 bytes=0") && lines[3].contains("result=1 message="), "a refused path: \(lines[3])")
        #expect(lines[4].hasPrefix("counters started=4 succeeded=3 failed=1 stopped=0 body_bytes="), "\(lines[4])")

        // Written through: the next process reads it from disk, and the origin is not asked again.
        let overlay = sandbox.root + "/cache/demo@1.0.0/www.example.com/app/late.js"
        #expect(eventually(seconds: 5) { FileManager.default.fileExists(atPath: overlay) })
        let again = try runHost(host, [sandbox.root, origin.baseURL, "get", "app://www.example.com/app/late.js"])
        #expect(again.stdout.hasPrefix("app://www.example.com/app/late.js status=200 bytes=30 "), "\(again.stdout)")
        let fetched = origin.settledAccessLog().map { String($0.split(separator: " ")[0]) }
        #expect(fetched == ["/app/late.js", "/app/missing.js"], "the origin asked once per miss: \(fetched)")
    }

    @Test func theReadmeExampleBuildsAndGetsThePage() throws {
        let readme = try String(contentsOfFile: BundleFixtures.repository + "/docs/EMBEDDING.md", encoding: .utf8)
        let start = try #require(readme.range(of: "```c\n#include <pkgctl/resolver.h>"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let example = String(readme[readme.index(start.lowerBound, offsetBy: 5)..<end.lowerBound])
            .replacingOccurrences(of: "\"/var/lib/pkgctl\"", with: "\"\(sandbox.root)\"")
        let source = temp.path("readme_example.c")
        try example.write(toFile: source, atomically: true, encoding: .utf8)
        let host = try buildHost(source, warnings: ["-Wall", "-Wno-unused-parameter"])
        let run = try runHost(host, [])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("200\n<!doctype html><title>demo</title>"), "the route's index.html: \(run.stdout)")
    }

    /// The origin the bindings' tests use: `/app/late.js` and the 8 MiB `/app/big.bin`.
    func bindingOrigin() throws -> NginxOrigin {
        let originRoot = try temp.makeDirectory("origin")
        try FileManager.default.createDirectory(atPath: originRoot + "/app", withIntermediateDirectories: true)
        try Data(Array("console.log('from the origin')".utf8)).write(to: URL(fileURLWithPath: originRoot + "/app/late.js"))
        try Data(count: 8 << 20).write(to: URL(fileURLWithPath: originRoot + "/app/big.bin"))
        return try NginxOrigin(root: originRoot, accessLog: true)
    }

    /// Runs a binding's own test suite against `origin` and the sandbox's store; checks what
    /// every suite proves: it passed, and nginx was asked for the written-through file once.
    func runBindingTests(_ executable: String, _ arguments: [String], origin: NginxOrigin,
                         environment: [String: String], passed: String) throws {
        let run = try PackagingCommand.run(executable, arguments, environment: [
            "PKGCTL_TEST_STORE": sandbox.root, "PKGCTL_TEST_UPSTREAM": origin.baseURL, "LD_LIBRARY_PATH": lib,
        ].merging(environment) { $1 })
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect((run.stdout + run.stderr).contains(passed), "\(run.stdout)\(run.stderr)")
        let lateFetches = origin.settledAccessLog().filter { $0.hasPrefix("/app/late.js ") }
        #expect(lateFetches.count == 1, "written through: the second resolver read it from disk: \(lateFetches)")
    }

    /// Lays out the uninstrumented library (``UninstrumentedBuild``) as installed, for a host that
    /// has no sanitizer's runtime to load an instrumented one: Python, a Rust test binary.
    func layOutUninstrumentedLibrary() throws {
        let library = try #require(UninstrumentedBuild.library, UninstrumentedBuild.absence)
        _ = try buildHost(library: library, sanitizer: [])
    }

    /// The boundary under AddressSanitizer and UndefinedBehaviorSanitizer: the library built with
    /// both, the C host built with both through pkg-config and run in every mode (local and origin
    /// answers, offline, stop storms from two threads, tasks abandoned at destroy, plans, and the
    /// struct_size cases, whose short and long structs the library must read no further than
    /// told), and the Python
    /// binding's tests in an interpreter with ASan's runtime preloaded. Any report fails the test.
    @Test(.enabled(if: !sanitizedLibrary.isEmpty, "needs PKGCTL_RESOLVER_ASAN_LIBRARY (scripts/test)"))
    func theCHostAndThePythonBindingRunCleanUnderAddressAndUndefinedBehaviorSanitizers() throws {
        let prefix = temp.path("sanitized"), folder = prefix + "/lib"
        let reports = try temp.makeDirectory("sanitizer-reports")
        let swiftRuntime = try Self.toolchainBin() + "/../lib/swift/linux"
        let host = try buildHost(library: Self.sanitizedLibrary, prefix: prefix, sanitizer: [
            "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g",
            "-Wl,-rpath," + swiftRuntime])
        // LeakSanitizer is off as in `scripts/test --sanitize address` (it cannot follow Swift's
        // side-table pointers); the abandon mode's handles are freed, which the fuzz target checks.
        let sanitizers = ["LD_LIBRARY_PATH": folder,
                          "ASAN_OPTIONS": "log_path=\(reports)/report detect_leaks=0",
                          "UBSAN_OPTIONS": "log_path=\(reports)/report print_stacktrace=1 halt_on_error=1"]
        let origin = try bindingOrigin()
        let modes: [[String]] = [
            ["get", "app://www.example.com/app/index.html", "app://www.example.com/app/missing.js",
             "app://www.example.com/app/js/app.js", "app://www.example.com/%2e%2e/etc/passwd"],
            ["offline", "app://www.example.com/app/nowhere.js"],
            ["storm", "40", "app://www.example.com/app/js/app.js"], ["storm", "40", "app://www.example.com/app/big.bin"],
            ["abandon", "40", "app://www.example.com/app/big.bin"],
            ["sizes", "app://www.example.com/app/index.html"],
            ["plan", "text/html", "app://www.example.com/app/index.html", "*/*", "app://www.example.com/app/big.bin",
             "*/*", "app://www.example.com/%2e%2e/etc/passwd"],
            ["offline-plan", "*/*", "app://www.example.com/app/nowhere.js"],
        ]
        for mode in modes {
            let run = try runHost(host, [sandbox.root, origin.baseURL] + mode, environment: sanitizers)
            #expect(run.status == 0, "\(mode[0]): \(run.stdout)\(run.stderr)")
        }
        let asanRuntime = try #require(FileManager.default.enumerator(atPath: try Self.toolchainBin() + "/../lib/clang")?
            .compactMap { $0 as? String }.first { $0.hasSuffix("/libclang_rt.asan-x86_64.so") })
        try runBindingTests("/usr/bin/env", ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                             BundleFixtures.repository + "/Examples/python/tests"],
                            origin: origin,
                            environment: sanitizers.merging([
                                "LD_PRELOAD": try Self.toolchainBin() + "/../lib/clang/" + asanRuntime,
                                "PKGCTL_RESOLVER_LIBRARY": folder + "/libpkgctl-resolver.so.0",
                                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONMALLOC": "malloc",
                            ]) { $1 },
                            passed: "14 passed")
        let found = (try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? []
        let text = found.map { (try? String(contentsOfFile: reports + "/" + $0, encoding: .utf8)) ?? $0 }.joined(separator: "\n")
        #expect(found.isEmpty, "sanitizer reports: \(text.prefix(4000))")
    }

    @Test(.enabled(if: UninstrumentedBuild.library != nil, UninstrumentedBuild.absence))
    func thePythonBindingPassesItsTestsAgainstNginx() throws {
        try layOutUninstrumentedLibrary()
        try runBindingTests("/usr/bin/env", ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                             BundleFixtures.repository + "/Examples/python/tests"],
                            origin: try bindingOrigin(),
                            environment: ["PKGCTL_RESOLVER_LIBRARY": lib + "/libpkgctl-resolver.so.0", "PYTHONDONTWRITEBYTECODE": "1"],
                            passed: "14 passed")
    }

    @Test(.enabled(if: UninstrumentedBuild.library != nil, UninstrumentedBuild.absence))
    func theRustBindingPassesItsTestsAgainstNginx() throws {
        try layOutUninstrumentedLibrary()
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        let cargo = ["/usr/bin/cargo", home + "/.cargo/bin/cargo"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let crate = BundleFixtures.repository + "/Examples/rust/pkgctl-resolver/Cargo.toml"
        try runBindingTests(try #require(cargo, "no cargo (scripts/setup --test installs it)"),
                            ["test", "--offline", "--quiet", "--manifest-path", crate],
                            origin: try bindingOrigin(),
                            environment: ["PKGCTL_RESOLVER_LIB_DIR": lib, "CARGO_TARGET_DIR": temp.path("cargo-target")],
                            passed: "6 passed")
    }

    @Test func aCHostGivenAStorePathThatDoesNotExistIsRefusedAndNothingIsMade() throws {
        let host = try buildHost()
        let missing = temp.path("no/such/store")
        let run = try runHost(host, [missing, "http://127.0.0.1:9", "offline", "app://www.example.com/app/index.html"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("create: store \(missing) does not exist; pkgctl update creates a store (is the path right?)"),
                "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temp.path("no")), "nothing created")
    }

    @Test func offlineAMissEndsWithTheOfflineResultAndNoFetch() throws {
        let host = try buildHost()
        let run = try runHost(host, [sandbox.root, "http://127.0.0.1:9", "offline", "app://www.example.com/app/index.html",
                                      "app://www.example.com/app/nowhere.js", "app://evil\nhost/x.js"])
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("app://www.example.com/app/index.html status=200 bytes=34 ") == true, "\(run.stdout)")
        #expect(lines.dropFirst().first == "app://www.example.com/app/nowhere.js status=0 bytes=0 type=- result=3 "
                + "message=app://www.example.com/app/nowhere.js is in no installed package (offline)", "\(run.stdout)")
        // A URL's control characters are escaped in the one-line message (found by the resolver-abi fuzz target).
        #expect(run.stdout.contains("message=app://evil\\u{a}host/x.js is in no installed package (offline)\n"),
                "\(run.stdout)")
    }

    @Test(arguments: ["local", "origin"])
    func stopsFromTheDispatchingThreadAndAnotherOneLeaveNoLateCallback(_ source: String) throws {
        let host = try buildHost()
        let originRoot = try temp.makeDirectory("origin")
        try FileManager.default.createDirectory(atPath: originRoot + "/app", withIntermediateDirectories: true)
        try Data(count: 8 << 20).write(to: URL(fileURLWithPath: originRoot + "/app/big.bin"))
        let origin = try NginxOrigin(root: originRoot)
        let url = source == "local" ? "app://www.example.com/app/js/app.js" : "app://www.example.com/app/big.bin"
        for round in 0..<3 {
            let run = try runHost(host, [sandbox.root, origin.baseURL, "storm", "40", url])
            #expect(run.status == 0, "round \(round): \(run.stdout)\(run.stderr)")
            let summary = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
            // Every task got body bytes, none could pass its window (nothing is consumed) to end,
            // all 40 were stopped mid-body, and no callback came after a stop.
            #expect(summary == "late=0 tasks=40 with_body=40 ended_before_stop=0 started=40 stopped=40", "\(summary)")
        }
        // Tasks the host never stopped are stopped, and their handles freed, by destroy.
        let abandoned = try runHost(host, [sandbox.root, origin.baseURL, "abandon", "40", url])
        #expect(abandoned.status == 0 && abandoned.stdout == "abandoned=40\n", "\(abandoned.stdout)\(abandoned.stderr)")
    }
}
