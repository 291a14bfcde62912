// swift-tools-version:6.1
import PackageDescription

// The shipped binaries export no symbols of their own: SwiftPM links executables with
// --export-dynamic, which put 16,352 of pkgctl's symbols in its dynamic table (1.56 MB of the
// stripped binary) for no caller: nothing loads them by name (BENCHMARKS.md, "A device binary
// that exports nothing"). The price: a crash's stack in the stripped binary shows addresses
// only; symbolize them with the release build's unstripped binary (same build-id). Debug builds
// keep them for the tests.
let exportOnlyWhatTheLoaderNeeds: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(configuration: .release)),
]

let package = Package(
    name: "pkgctl",
    products: [
        .library(name: "PkgCore", targets: ["PkgCore"]),
        .library(name: "PkgPublishing", targets: ["PkgPublishing"]),
        .library(name: "PkgServer", targets: ["PkgServer"]),
        // The resolver for C, Python and Rust hosts: pkgctl/resolver.h (Sources/CPkgResolver/include).
        .library(name: "pkgctl-resolver", type: .dynamic, targets: ["PkgResolverC"]),
        // The device's command line; it runs pkgctl-publisher for the publisher's commands.
        .executable(name: "pkgctl", targets: ["pkgctl"]),
        .executable(name: "pkgctl-publisher", targets: ["pkgctl-publisher"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // No JSON trait: its reader links all of Foundation (ConfigFile reads the file instead).
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
    ],
    targets: [
        .systemLibrary(
            name: "CZip",
            pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"])]
        ),
        // Debian's libcrypto (OpenSSL 3), already in every process through libcurl, behind
        // PkgCrypto: SHA-256, HMAC and Ed25519 without building a second copy (BoringSSL).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "PkgCrypto", dependencies: ["COpenSSL"]),
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .target(name: "CSystemShims"),
        .target(
            name: "CCompression",
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("zstd")]
        ),
        // The encoders of pack --precompress, apart so the resolver library links no encoder.
        .target(
            name: "CPrecompression",
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("brotlienc")]
        ),
        .target(
            name: "CImageCodec",
            // Under scripts/fuzz its C is instrumented too, so the image-decode target is guided by
            // the decoders' branches (libpng and libjpeg themselves are Debian's, uninstrumented).
            cSettings: Context.environment["PKGCTL_FUZZ"] == "1"
                ? [.unsafeFlags(["-fsanitize=fuzzer-no-link,address"])] : [],
            // libavif is not linked: avif.c opens it on first use (why: there).
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("webp"), .linkedLibrary("m")]
        ),
        .target(
            name: "PkgCore",
            dependencies: [
                "CZip",
                "CCurl",
                "CSystemShims",
                "CCompression",
                "PkgCrypto",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .target(name: "CPkgResolver", exclude: ["resolver.map"]),
        .target(
            name: "PkgResolverC",
            dependencies: ["PkgCore", "CPkgResolver", "CSystemShims"],
            // A versioned SONAME (an ABI break, which abidiff finds, must change it) and only
            // the pkgctl_* functions exported: for the shared library, not for the fuzz target
            // that links these objects into an executable (its sanitizer runtime must export malloc).
            linkerSettings: Context.environment["PKGCTL_FUZZ"] == "1" ? [] : [.unsafeFlags([
                "-Xlinker", "-soname=libpkgctl-resolver.so.0",
                "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/CPkgResolver/resolver.map",
            ]),
            // A release library carries the Swift runtime (SwiftPM's --static-swift-stdlib links
            // only executables so), so it needs only Debian's libraries (scripts/package).
            .unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
        ),
        // The publisher's side: the publishing folder and what runs on it (pack, publish, prune,
        // promote, rollout, revoke, sign, timestamp) and the fleet's reports. Apart from PkgCore,
        // so libpkgctl-resolver.so, which apps embed, carries none of it.
        .target(
            name: "PkgPublishing",
            dependencies: [
                "PkgCore",
                "CZip",
                "CSystemShims",
                "CPrecompression",
                "PkgCrypto",
            ]
        ),
        // pack --image-variants: apart from PkgCore, so libpkgctl-resolver.so does not need the image codecs.
        .target(name: "PkgImageVariants", dependencies: ["PkgCore", "PkgPublishing", "CImageCodec"]),
        .target(
            name: "PkgServer",
            dependencies: [
                "PkgCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // What both command lines share: output, exit statuses, usage corrections, progress.
        .target(
            name: "PkgCommandLine",
            dependencies: ["PkgCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The device's binary: no publisher's code, no image codec (docs/ARCHITECTURE.md).
        .executableTarget(
            name: "pkgctl",
            dependencies: [
                "PkgCore",
                "PkgServer",
                "PkgCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            linkerSettings: exportOnlyWhatTheLoaderNeeds
        ),
        .executableTarget(
            name: "pkgctl-publisher",
            dependencies: [
                "PkgCore",
                "PkgPublishing",
                "PkgImageVariants",
                "PkgCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: exportOnlyWhatTheLoaderNeeds
        ),
        .executableTarget(
            name: "ResolveBench",
            dependencies: ["PkgCore"],
            path: "bench/ResolveBench"
        ),
        .testTarget(
            name: "PkgctlTests",
            dependencies: ["PkgCore", "PkgPublishing", "PkgServer", "PkgImageVariants", "CImageCodec", "CZip", "CCompression",
                           "CPrecompression", .product(name: "NIOHTTP1", package: "swift-nio"),
                           "PkgCrypto"]
        ),
    ]
)

// The Swift hybrid-app example (Examples/HybridApp, a WebKitGTK window), declared here too only
// for scripts/test, which sets PKGCTL_EXAMPLES=1 for a release build in .build-release: it then
// builds against the PkgCore the packages were just built with, instead of building PkgCore and
// its dependencies again in the example's own package. A normal build never sees it (and never
// needs WebKitGTK); users build the example from Examples/HybridApp/Package.swift.
if Context.environment["PKGCTL_EXAMPLES"] == "1" {
    package.targets.append(.systemLibrary(name: "CWebKitGTK", path: "Examples/HybridApp/Sources/CWebKitGTK",
                                          pkgConfig: "webkit2gtk-4.1"))
    package.targets.append(.executableTarget(
        name: "hybrid-app",
        dependencies: ["CWebKitGTK", "PkgCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
        path: "Examples/HybridApp/Sources/HybridApp"))
}

// libFuzzer targets over the parsers of outside input (Fuzz/Targets/*; FUZZING.md).
// Declared only for scripts/fuzz, which sets PKGCTL_FUZZ=1 and builds them with
// -sanitize=fuzzer in .build-fuzz: a normal build never sees them.
if Context.environment["PKGCTL_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzManifest", ["PkgCore", "PkgPublishing"]),
        ("FuzzSignedManifest", ["PkgCore"]),
        ("FuzzFileIndex", ["PkgCore"]),
        ("FuzzEntryName", ["PkgCore"]),
        ("FuzzRequestPath", ["PkgCore"]),
        ("FuzzRouting", ["PkgCore"]),
        ("FuzzConditionalHeaders", ["PkgCore"]),
        ("FuzzHTTPDate", ["PkgCore"]),
        ("FuzzPEM", ["PkgCore"]),
        ("FuzzRequestTarget", ["PkgCore", "PkgServer", .product(name: "NIOHTTP1", package: "swift-nio")]),
        ("FuzzResponseHeaders", ["PkgCore"]),
        ("FuzzTimestamp", ["PkgCore", "PkgCrypto"]),
        ("FuzzTreeDelta", ["PkgCore", "PkgPublishing", "PkgCrypto"]),
        ("FuzzFleetLog", ["PkgCore", "PkgPublishing"]),
        ("FuzzResolverABI", ["PkgResolverC", "CPkgResolver"]),
        ("FuzzImageDecode", ["CImageCodec"]),
    ]
    package.targets.append(.target(name: "CFuzzerDriver", path: "Fuzz/Targets/CFuzzerDriver"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["PkgCore", "CFuzzerDriver"],
                                   path: "Fuzz/Targets/FuzzSupport"))
    for target in fuzzTargets {
        package.targets.append(.executableTarget(name: target.name, dependencies: target.dependencies + ["FuzzSupport"],
                                                 path: "Fuzz/Targets/\(target.name)"))
    }
    // Only the fuzz targets and what they reach: one `swift build` then builds every target at once
    // (scripts/fuzz --build), with nothing else instrumented and linked beside them.
    var reached = Set<String>(), next = fuzzTargets.map(\.name)
    while let name = next.popLast() {
        guard reached.insert(name).inserted, let target = package.targets.first(where: { $0.name == name }) else { continue }
        for case .targetItem(let dependency, _) in target.dependencies { next.append(dependency) }
        for case .byNameItem(let dependency, _) in target.dependencies { next.append(dependency) }
    }
    package.targets.removeAll { !reached.contains($0.name) }
    package.products.removeAll { product in
        guard let library = product as? Product.Library else { return true }
        return library.type == .dynamic || !library.targets.allSatisfy(reached.contains)
    }
}
