import Foundation
import Testing

/// python3-pkgctl-resolver, the Python binding as `scripts/package` builds it beside the
/// library's packages: lintian-clean, and importable from where dpkg installs it, where it
/// finds the installed library and answers from a store.
@Suite(.enabled(if: DebianPackage.isAvailable, "needs PKGCTL_DEB, the .deb scripts/package builds (scripts/test)"))
struct PythonPackageTests {
    static var deb: String { DebianPackage.sibling("python3-pkgctl-resolver", architecture: "all") }
    static let modules = ["__init__.py", "_abi.py", "errors.py", "headers.py", "resolver.py", "py.typed"]
    /// The page both installs of the binding fetch (`demoStore()`).
    static let page = "<!doctype html><title>demo</title>"

    /// A store holding demo 1.0.0, whose index.html is ``page``.
    static func demoStore() throws -> ResolveSandbox {
        let sandbox = try ResolveSandbox()
        try sandbox.install("demo", "1.0.0", routes: ["www.example.com/app"], files: ["index.html": Array(page.utf8)])
        return sandbox
    }

    @Test func lintianReportsNoErrorOrWarning() throws {
        try DebianPackage.expectLintianClean([Self.deb])
    }

    @Test func itHoldsThePackageForEveryArchitectureAndNeedsTheLibrary() throws {
        let entries = try DebianPackage.contents(Self.deb)
        for module in Self.modules {
            #expect(entries["./usr/lib/python3/dist-packages/pkgctl_resolver/\(module)"]?.mode == "-rw-r--r--", "\(module)")
        }
        #expect(!entries.keys.contains { $0.contains("__pycache__") }, "no byte-code shipped")
        let fields = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", Self.deb, "Architecture", "Depends", "Section"])
        #expect(fields == "Architecture: all\nDepends: python3 (>= 3.8), libpkgctl-resolver0 (>= \(DebianPackage.version))\n"
                + "Section: python\n", "\(fields)")
    }

    /// Installed with the library into a throwaway root, Debian's python3 imports the binding
    /// from there, loads the library from there and gets a package's file offline, by `fetch()`
    /// and through a GLib main context (`attach()`, PyGObject); the purge leaves no file behind.
    @Test(.enabled(if: getuid() == 0, "dpkg --root needs root"))
    func installedItAnswersFromAStoreAndPurgesWhole() throws {
        let debs = [ResolverPackages.library, Self.deb]
        let (root, dpkg) = try DebianPackage.throwawayRoot(for: debs)
        let install = try PackagingCommand.run("/usr/bin/dpkg", dpkg + ["--install"] + debs)
        #expect(install.status == 0 && !install.all.contains("warning"), "\(install.all)")
        let sandbox = try Self.demoStore()
        // fetch() for a script; then a GLib host's way, attach() to a main context of its own.
        let script = """
            import sys, pkgctl_resolver
            from gi.repository import GLib
            print(pkgctl_resolver.__file__)
            with pkgctl_resolver.Resolver(sys.argv[1], offline=True) as resolver:
                response = resolver.fetch("app://www.example.com/app/index.html")
                print(response.status, response.headers["content-type"], response.body.decode())
                context, ended, body = GLib.MainContext.new(), [], []
                resolver.attach(context)
                resolver.start("GET", "app://www.example.com/app/index.html", on_data=body.append,
                               on_end=lambda result, message: ended.append(result))
                for _ in range(1000):
                    if ended:
                        break
                    context.iteration(True)
                print("attached:", ended, b"".join(body).decode())
            """
        let run = try PackagingCommand.run("/usr/bin/python3", ["-B", "-c", script, sandbox.root], environment: [
            "PYTHONPATH": root.path("usr/lib/python3/dist-packages"),
            "PKGCTL_RESOLVER_LIBRARY": root.path("\(ResolverPackages.libdir)/libpkgctl-resolver.so.0"),
        ])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout == root.path("usr/lib/python3/dist-packages/pkgctl_resolver/__init__.py") + "\n"
                + "200 text/html; charset=utf-8 <!doctype html><title>demo</title>\n"
                + "attached: [<Result.OK: 0>] <!doctype html><title>demo</title>\n", "\(run.all)")
        let purge = try PackagingCommand.run("/usr/bin/dpkg", dpkg + ["--purge", "python3-pkgctl-resolver", "libpkgctl-resolver0"])
        let warnings = purge.all.split(separator: "\n").filter { $0.contains("warning") && !$0.contains("'/usr' not empty") }
        #expect(purge.status == 0 && warnings.isEmpty, "\(purge.all)")
        #expect(!FileManager.default.fileExists(atPath: root.path("usr/lib/python3/dist-packages/pkgctl_resolver")))
    }

    /// The wheel `scripts/package` builds beside the packages: pip installs the typed package with
    /// pkgctl's version, and Python imports it from where pip put it and answers from a store
    /// through the packaged library.
    @Test func theWheelInstallsWithPipAndAnswersFromAStore() throws {
        let version = DebianPackage.version
        let wheel = DebianPackage.folder + "/pkgctl_resolver-\(version)-py3-none-any.whl"
        let target = try TemporaryDirectory(prefix: "pkgctl-wheel")
        let install = try PackagingCommand.run("/usr/bin/env", [
            "python3", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-index",
            "--target", target.path, wheel])
        #expect(install.status == 0, "\(install.all)")
        for module in Self.modules {
            #expect(FileManager.default.fileExists(atPath: target.path("pkgctl_resolver/\(module)")), "\(module)")
        }
        let metadata = try String(contentsOfFile: target.path("pkgctl_resolver-\(version).dist-info/METADATA"), encoding: .utf8)
        #expect(metadata.contains("Name: pkgctl-resolver\nVersion: \(version)\n") && metadata.contains("Requires-Python: >=3.8"),
                "\(metadata.prefix(400))")

        let (library, environment) = try ResolverPackages.unpack()
        let sandbox = try Self.demoStore()
        let script = """
            import sys, pkgctl_resolver
            print(pkgctl_resolver.__file__)
            with pkgctl_resolver.Resolver(sys.argv[1], offline=True) as resolver:
                print(resolver.fetch("app://www.example.com/app/index.html").body.decode())
            """
        let run = try PackagingCommand.run("/usr/bin/env", ["python3", "-B", "-c", script, sandbox.root], environment: [
            "PYTHONPATH": target.path,
            "PKGCTL_RESOLVER_LIBRARY": (environment["LD_LIBRARY_PATH"] ?? "") + "/libpkgctl-resolver.so.0",
        ])
        withExtendedLifetime(library) {}
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout == target.path("pkgctl_resolver/__init__.py") + "\n<!doctype html><title>demo</title>\n", "\(run.all)")
    }
}
