// swift-tools-version:6.0
import PackageDescription

/// A Linux hybrid app: a WebKitGTK window whose `app://` scheme is answered by
/// pkgctl's resolver (PkgCore). Kept out of the root package so that building
/// and testing pkgctl never needs WebKitGTK.
let package = Package(
    name: "HybridApp",
    dependencies: [
        .package(name: "pkgctl", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]
        ),
        .executableTarget(
            name: "hybrid-app",
            dependencies: [
                "CWebKitGTK",
                .product(name: "PkgCore", package: "pkgctl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/HybridApp"
        ),
    ]
)
