import Foundation
import Testing

/// `scripts/abi-check` (abidiff against packaging/abi/libpkgctl-resolver.so.0.abi) fails on a
/// break and passes a compatible change. Each case builds, with Debian's cc and debug
/// information, a library of the exported C layer (Sources/CPkgResolver/abi.c, its Swift
/// implementation left undefined as a shared library may) from a copy of pkgctl/resolver.h
/// changed as the case says, and checks it against the committed baseline.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/abidiff"),
                "needs abidiff (abigail-tools; scripts/setup --package)"))
struct ResolverABICheckTests {
    static let sources = BundleFixtures.repository + "/Sources/CPkgResolver"

    struct Change {
        var header: [(String, String)] = []
        var extraFunction: String? = nil
        var soname = "libpkgctl-resolver.so.0"
    }

    /// Builds the library with `change` applied and runs scripts/abi-check on it.
    func check(_ change: Change) throws -> PackagingCommand.Result {
        let temp = try TemporaryDirectory(prefix: "pkgctl-abi")
        try temp.makeDirectory("include/pkgctl")
        var header = try String(contentsOfFile: Self.sources + "/include/pkgctl/resolver.h", encoding: .utf8)
        var source = try String(contentsOfFile: Self.sources + "/abi.c", encoding: .utf8)
        var map = try String(contentsOfFile: Self.sources + "/resolver.map", encoding: .utf8)
        for (old, new) in change.header {
            try #require(header.contains(old), "\(old) is not in resolver.h")
            header = header.replacingOccurrences(of: old, with: new)
            source = source.replacingOccurrences(of: old.replacingOccurrences(of: ";", with: " {"),
                                                 with: new.replacingOccurrences(of: ";", with: " {"))
        }
        if let name = change.extraFunction {
            header = header.replacingOccurrences(of: "\n#ifdef __cplusplus\n}", with: "\nint \(name)(void);\n\n#ifdef __cplusplus\n}")
            source += "\nint \(name)(void) { return 0; }\n"
            map = map.replacingOccurrences(of: "    local: *;", with: "        \(name);\n    local: *;")
        }
        try header.write(toFile: temp.path("include/pkgctl/resolver.h"), atomically: true, encoding: .utf8)
        try source.write(toFile: temp.path("abi.c"), atomically: true, encoding: .utf8)
        try map.write(toFile: temp.path("resolver.map"), atomically: true, encoding: .utf8)
        let library = temp.path("libpkgctl-resolver.so")
        try PackagingCommand.require("/usr/bin/cc", [
            "-shared", "-fPIC", "-g", "-O2", "-I", temp.path("include"), "-I", Self.sources, temp.path("abi.c"),
            "-o", library, "-Wl,-soname,\(change.soname)", "-Wl,--version-script=\(temp.path("resolver.map"))"])
        return try PackagingCommand.run(BundleFixtures.repository + "/scripts/abi-check", [library])
    }

    @Test func theHeaderAsItIsKeepsTheBaseline() throws {
        let result = try check(Change())
        #expect(result.status == 0 && result.stdout.contains("keeps the ABI"), "\(result.all)")
    }

    @Test func aRemovedStructFieldFails() throws {
        let result = try check(Change(header: [("    uint64_t window;\n", "")]))
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stdout.contains("'uint64_t window', at offset 320 (in bits)"), "\(result.all)")
        #expect(result.stderr.contains("breaks the ABI of libpkgctl-resolver.so.0"), "\(result.all)")
    }

    @Test func aChangedParameterTypeFails() throws {
        let result = try check(Change(header: [("void pkgctl_task_consumed(pkgctl_task *task, size_t length);",
                                                "void pkgctl_task_consumed(pkgctl_task *task, uint32_t length);")]))
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stdout.contains("pkgctl_task_consumed") && result.stdout.contains("type size changed from 64 to 32"),
                "\(result.all)")
    }

    @Test func aRemovedFunctionFails() throws {
        // The baseline has pkgctl_task_consumed; this library does not define it.
        let result = try check(Change(header: [("void pkgctl_task_consumed(pkgctl_task *task, size_t length);",
                                                "void pkgctl_task_consumed_renamed(pkgctl_task *task, size_t length);")]))
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stdout.contains("1 Removed function"), "\(result.all)")
    }

    @Test func anAddedFunctionPasses() throws {
        let result = try check(Change(extraFunction: "pkgctl_resolver_abi_revision"))
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("'function int pkgctl_resolver_abi_revision()'"), "\(result.all)")
        #expect(result.stdout.contains("compatible; functions were added"), "\(result.all)")
    }

    @Test func aBreakWithANewSONAMEPasses() throws {
        let result = try check(Change(header: [("    uint64_t window;\n", "")], soname: "libpkgctl-resolver.so.1"))
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("ABI break declared by the SONAME libpkgctl-resolver.so.0 -> libpkgctl-resolver.so.1"),
                "\(result.all)")
    }
}
