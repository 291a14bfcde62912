import Foundation
import Testing

/// The resolver's Debian packages `scripts/package` builds beside `PKGCTL_DEB`:
/// libpkgctl-resolver0 (the shared library) and libpkgctl-resolver-dev (header, .so link,
/// pkg-config file, static library).
enum ResolverPackages {
    /// The functions the library exports and the version node of each, as the version script
    /// `Sources/CPkgResolver/resolver.map` lists them (`NODE { global: name; … }`), sorted by name.
    static let versionedExports: [(name: String, node: String)] = {
        let map = (try? String(contentsOfFile: BundleFixtures.repository + "/Sources/CPkgResolver/resolver.map",
                               encoding: .utf8)) ?? ""
        var node = "", exports: [(name: String, node: String)] = []
        for line in map.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("PKGCTL_RESOLVER_"), line.hasSuffix("{") {
                node = String(line.dropLast()).trimmingCharacters(in: .whitespaces)
            } else if line.hasPrefix("pkgctl_"), line.hasSuffix(";") {
                exports.append((String(line.dropLast()), node))
            }
        }
        return exports.sorted { $0.name < $1.name }
    }()
    /// The exported functions' names, sorted.
    static var exports: [String] { versionedExports.map(\.name) }
    /// The version nodes, sorted.
    static var nodes: [String] { Set(versionedExports.map(\.node)).sorted() }
    static let libdir = "usr/lib/x86_64-linux-gnu"

    static var library: String { DebianPackage.sibling("libpkgctl-resolver0") }
    static var development: String { DebianPackage.sibling("libpkgctl-resolver-dev") }

    /// Both packages unpacked into a new directory by `scripts/lib/resolver-prefix`, with the
    /// environment it prints (PKG_CONFIG_PATH, LD_LIBRARY_PATH).
    static func unpack() throws -> (directory: TemporaryDirectory, environment: [String: String]) {
        let directory = try TemporaryDirectory(prefix: "pkgctl-resolver-deb")
        let printed = try PackagingCommand.require(BundleFixtures.repository + "/scripts/lib/resolver-prefix", [
            DebianPackage.folder, directory.path("root"), DebianPackage.version])
        var environment: [String: String] = [:]
        for line in printed.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { environment[parts[0]] = parts[1] }
        }
        return (directory, environment)
    }

}

@Suite(.enabled(if: DebianPackage.isAvailable, "needs PKGCTL_DEB, the .deb scripts/package builds (scripts/test)"))
struct ResolverPackageTests {
    @Test(arguments: ["libpkgctl-resolver0", "libpkgctl-resolver-dev"])
    func lintianReportsNoErrorOrWarning(_ package: String) throws {
        try DebianPackage.expectLintianClean([DebianPackage.sibling(package)])
    }

    @Test func theLibraryPackageHoldsTheSONAMELinkSymbolsAndTrigger() throws {
        let libdir = "./" + ResolverPackages.libdir
        let entries = try DebianPackage.contents(ResolverPackages.library)
        #expect(entries["\(libdir)/libpkgctl-resolver.so.0.0.0"]?.mode == "-rw-r--r--", "\(entries.keys.sorted())")
        #expect(entries["\(libdir)/libpkgctl-resolver.so.0"]?.target == "libpkgctl-resolver.so.0.0.0")
        for document in ["copyright", "changelog.gz"] {
            #expect(entries["./usr/share/doc/libpkgctl-resolver0/\(document)"]?.mode == "-rw-r--r--", "\(document)")
        }
        let fields = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", ResolverPackages.library,
                                                                        "Version", "Section", "Multi-Arch", "Depends"])
        #expect(fields.contains("Version: \(DebianPackage.version)\n") && fields.contains("Section: libs\n"), "\(fields)")
        #expect(fields.contains("libc6 (>=") && fields.contains("libcurl4 (>=") && !fields.lowercased().contains("swift"),
                "\(fields)")
        let symbols = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-I", ResolverPackages.library, "symbols"])
        #expect(symbols.hasPrefix("libpkgctl-resolver.so.0 libpkgctl-resolver0 #MINVER#\n"), "\(symbols)")
        #expect(ResolverPackages.exports.count >= 12, "resolver.map read: \(ResolverPackages.versionedExports)")
        for (name, node) in ResolverPackages.versionedExports { #expect(symbols.contains(" \(name)@\(node) "), "\(name)") }
        let triggers = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-I", ResolverPackages.library, "triggers"])
        #expect(triggers == "activate-noawait ldconfig\n")
    }

    @Test func theDevelopmentPackageHoldsHeaderLinkAndPkgConfigFileForThisVersion() throws {
        let libdir = "./" + ResolverPackages.libdir
        let entries = try DebianPackage.contents(ResolverPackages.development)
        #expect(entries["./usr/include/pkgctl/resolver.h"]?.mode == "-rw-r--r--", "\(entries.keys.sorted())")
        #expect(entries["\(libdir)/libpkgctl-resolver.so"]?.target == "libpkgctl-resolver.so.0")
        #expect(entries["\(libdir)/pkgconfig/pkgctl-resolver.pc"]?.mode == "-rw-r--r--")
        #expect(entries["\(libdir)/libpkgctl-resolver.a"]?.mode == "-rw-r--r--")
        let depends = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", ResolverPackages.development, "Depends"])
        #expect(depends == "libpkgctl-resolver0 (= \(DebianPackage.version))\n")
        let unpacked = try ResolverPackages.unpack()
        let header = try String(contentsOfFile: unpacked.directory.path("root/usr/include/pkgctl/resolver.h"), encoding: .utf8)
        #expect(header == (try String(contentsOfFile: BundleFixtures.repository + "/Sources/CPkgResolver/include/pkgctl/resolver.h",
                                      encoding: .utf8)))
        let version = try PackagingCommand.require("/usr/bin/pkg-config", ["--modversion", "pkgctl-resolver"],
                                                   environment: unpacked.environment)
        #expect(version == DebianPackage.version + "\n")
        // As packaged, every path follows ${prefix}=/usr (resolver-prefix moves only that line).
        let pc = try PackagingCommand.require("/bin/sh", ["-c", "dpkg-deb --fsys-tarfile \"$0\" | tar -xOf - \"$1\"",
                                                           ResolverPackages.development,
                                                           "./\(ResolverPackages.libdir)/pkgconfig/pkgctl-resolver.pc"])
        for line in ["prefix=/usr", "libdir=${prefix}/lib/x86_64-linux-gnu", "includedir=${prefix}/include"] {
            #expect(pc.split(separator: "\n").contains(Substring(line)), "\(line) missing: \(pc)")
        }
        let flags = try PackagingCommand.require("/usr/bin/pkg-config", ["--cflags", "--libs", "pkgctl-resolver"],
                                                 environment: unpacked.environment)
        let root = unpacked.directory.path("root")
        #expect(flags.trimmingCharacters(in: .whitespacesAndNewlines)
                == "-I\(root)/usr/include -L\(root)/\(ResolverPackages.libdir) -lpkgctl-resolver", "\(flags)")
        // A static link adds the Debian libraries the Swift code inside uses.
        let libs = try PackagingCommand.require("/usr/bin/pkg-config", ["--static", "--libs", "pkgctl-resolver"],
                                                environment: unpacked.environment)
        for flag in ["-lpkgctl-resolver", "-lcurl", "-lzip", "-lstdc++"] { #expect(libs.contains(flag), "\(libs)") }
        // The static library's one object defines, as global symbols, just the header's functions.
        let archive = unpacked.directory.path("root/\(ResolverPackages.libdir)/libpkgctl-resolver.a")
        // "0000000000138170 T pkgctl_resolver_create", after the member's name line.
        let globals = try PackagingCommand.require("/usr/bin/nm", ["--defined-only", "--extern-only", archive])
            .split(separator: "\n").map { $0.split(separator: " ") }.filter { $0.count == 3 }.map { String($0[2]) }
        #expect(globals.sorted() == ResolverPackages.exports, "\(globals)")
    }

    @Test func theLibraryNeedsOnlyDebiansLibrariesExportsOnlyTheABIAndIsStripped() throws {
        let unpacked = try ResolverPackages.unpack()
        let library = unpacked.directory.path("root/\(ResolverPackages.libdir)/libpkgctl-resolver.so.0.0.0")
        let (dynamic, needed) = try DebianPackage.dynamicSection(of: library)
        #expect(Set(needed).isSubset(of: DebianPackage.debianLibraries), "\(needed)")
        #expect(dynamic.contains("Library soname: [libpkgctl-resolver.so.0]"), "\(dynamic)")
        #expect(!dynamic.contains("RPATH") && !dynamic.contains("RUNPATH"), "\(dynamic)")
        // Defined global symbols of the dynamic table: the header's functions, each in its version node
        // (lld defines the nodes as versions only, not also as symbols as GNU linkers do).
        let exported = try PackagingCommand.require("/usr/bin/nm", ["-D", "--defined-only", "--extern-only", library])
            .split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }.sorted()
        #expect(exported == ResolverPackages.versionedExports.map { $0.name + "@@" + $0.node }.sorted(), "\(exported)")
        // "  0x001c: Rev: 1  Flags: none  Index: 2  Cnt: 1  Name: PKGCTL_RESOLVER_0", after the soname's (BASE) line.
        let definitions = try PackagingCommand.require("/usr/bin/readelf", ["-V", library])
            .split(separator: "\n").drop { !$0.contains(".gnu.version_d") }.prefix { !$0.contains(".gnu.version_r") }
            .filter { $0.contains("Flags: none") }.compactMap { $0.components(separatedBy: "Name: ").last }
        #expect(definitions.sorted() == ResolverPackages.nodes, "\(definitions)")
        let sections = try PackagingCommand.require("/usr/bin/readelf", ["-S", library])
        #expect(!sections.contains(".symtab") && !sections.contains(".debug_"), "not stripped")
    }

    /// What apps embed carries the device's side only: no publisher module (pack, publish, the
    /// fleet page) in its bytes, and no encoder among its libraries (issue 44).
    @Test func theLibraryCarriesNoPublisherCodeNorEncoder() throws {
        let unpacked = try ResolverPackages.unpack()
        let library = unpacked.directory.path("root/\(ResolverPackages.libdir)/libpkgctl-resolver.so.0.0.0")
        let (_, needed) = try DebianPackage.dynamicSection(of: library)
        #expect(!needed.contains { $0.hasPrefix("libbrotlienc") }, "\(needed)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: library))
        // Swift's type metadata names each type with its module ("14PkgPublishing16PublishingFolder"),
        // stripped or not; a brotli encoder linked in would bring BrotliEncoderCompress's strings.
        for marker in ["PkgPublishing", "PublishingFolder", "FleetTally", "BundlePacker", "BrotliEncoder"] {
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) in \(library)")
        }
    }

    /// Both packages installed together with `dpkg --root` into an empty root (the -dev
    /// package's Depends on exactly this version of the library is met), then purged.
    @Test(.enabled(if: getuid() == 0, "dpkg --root needs root"))
    func bothInstallIntoAThrowawayRootAndPurgeFromIt() throws {
        let (root, dpkg) = try DebianPackage.throwawayRoot(for: [ResolverPackages.library, ResolverPackages.development])
        let install = try PackagingCommand.run("/usr/bin/dpkg", dpkg + ["--install", ResolverPackages.library,
                                                                        ResolverPackages.development])
        #expect(install.status == 0 && !install.all.contains("warning"), "\(install.all)")
        for package in ["libpkgctl-resolver0", "libpkgctl-resolver-dev"] {
            let status = try PackagingCommand.require("/usr/bin/dpkg-query", ["--root=\(root.path)", "-W", "-f=${Status} ${Version}",
                                                                                package])
            #expect(status == "install ok installed \(DebianPackage.version)", "\(package): \(status)")
        }
        let link = root.path("\(ResolverPackages.libdir)/libpkgctl-resolver.so")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "libpkgctl-resolver.so.0")
        let purge = try PackagingCommand.run("/usr/bin/dpkg", dpkg + ["--purge", "libpkgctl-resolver-dev", "libpkgctl-resolver0"])
        // The root's own /usr/bin (throwawayRoot) keeps /usr, which no package there owns.
        let warnings = purge.all.split(separator: "\n").filter { $0.contains("warning") && !$0.contains("'/usr' not empty") }
        #expect(purge.status == 0 && warnings.isEmpty, "\(purge.all)")
        #expect(!FileManager.default.fileExists(atPath: root.path("\(ResolverPackages.libdir)/libpkgctl-resolver.so.0.0.0")))
    }

    /// After `scripts/lib/resolver-prefix` unpacks both packages, a C host is compiled with
    /// Debian's cc and `pkg-config --cflags --libs pkgctl-resolver`, and again against the static
    /// library (`-Bstatic` for it, `pkg-config --static` for what it needs; --as-needed drops the
    /// shared one the second `-lpkgctl-resolver` names), and each gets a file of an installed
    /// package offline, all with the Swift toolchain hidden (an empty tmpfs over it).
    @Test func withTheToolchainHiddenACHostBuiltWithPkgConfigGetsAnInstalledFile() throws {
        let unpacked = try ResolverPackages.unpack()
        let sandbox = try ResolveSandbox()
        try sandbox.install("demo", "1.0.0", routes: ["www.example.com/app"], files: [
            "index.html": Array("<!doctype html><title>demo</title>".utf8),
        ])
        let script = #"""
            set -e
            mount -t tmpfs none "$TOOLCHAIN"
            if [ -e "$TOOLCHAIN/usr/lib/swift/linux/libswiftCore.so" ]; then echo "toolchain still visible"; exit 1; fi
            cc -std=c11 -pthread -Wall -Wextra -Werror -o "$WORK/resolver_host" "$SOURCE" \
              $(pkg-config --cflags --libs pkgctl-resolver)
            "$WORK/resolver_host" "$STORE" http://127.0.0.1:9 offline app://www.example.com/app/index.html
            cc -std=c11 -pthread -Wall -Wextra -Werror -o "$WORK/resolver_host_static" "$SOURCE" \
              $(pkg-config --cflags pkgctl-resolver) -Wl,--as-needed -Wl,-Bstatic $(pkg-config --libs pkgctl-resolver) \
              -Wl,-Bdynamic $(pkg-config --static --libs pkgctl-resolver) 2>"$WORK/static.err" \
              || { cat "$WORK/static.err"; exit 1; }
            readelf -d "$WORK/resolver_host_static" | grep NEEDED | grep -q pkgctl && { echo "links the shared library"; exit 1; }
            env -u LD_LIBRARY_PATH "$WORK/resolver_host_static" "$STORE" http://127.0.0.1:9 offline \
              app://www.example.com/app/index.html
            """#
        let unshare = getuid() == 0 ? ["--mount"] : ["--map-root-user", "--mount"]
        let result = try PackagingCommand.run(
            "/usr/bin/unshare", unshare + ["/bin/sh", "-c", script],
            environment: unpacked.environment.merging([
                "TOOLCHAIN": try DebianPackage.toolchainRoot(), "WORK": unpacked.directory.path,
                "SOURCE": BundleFixtures.repository + "/Tests/CHost/resolver_host.c", "STORE": sandbox.root,
            ]) { $1 })
        #expect(result.status == 0, "\(result.all)")
        let got = "app://www.example.com/app/index.html status=200 bytes=34 type=text/html; charset=utf-8 result=0\n"
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map { $0 + "\n" }
        #expect(lines.filter { $0 == got }.count == 2, "the shared and the static host: \(result.all)")
    }
}
