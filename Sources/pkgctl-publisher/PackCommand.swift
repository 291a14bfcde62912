import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing
import PkgImageVariants

struct PackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Zip a directory deterministically and add it to OUT_DIR/manifest.json.",
        discussion: """
            Writes OUT_DIR/zips/NAME-VERSION.<sha256>.zip, the version's file index, each file as a \
            content-addressed object, and tree deltas from the --delta-from newest earlier versions, then \
            adds or replaces the package's entry in OUT_DIR/manifest.json. Every file but manifest.json is \
            named by the SHA-256 of its bytes and never rewritten, so a CDN may keep it forever; the same \
            tree packs to the same bytes. Prints the zip and each delta with its size.

            A version the manifest names, or a manifest archived in OUT_DIR/manifests named, is never packed \
            again with other bytes: publish the change as a new version (--force replaces it only while no \
            device can have it). A version that sorts below the one the manifest names now is refused \
            unless --allow-downgrade (name a hot fix 3.18.1 or 3.18.0.1, not 3.18.0-hotfix1: that sorts \
            below 3.18.0). Also refused, in one line, exit 1: a revoked version, a --spa-fallback file or an \
            --immutable glob the bundle lacks, a --header field the server writes itself. With --sign, \
            manifest.json is written as a signed envelope whose sequence rises by one; without it, a \
            signed manifest is not replaced by an unsigned one.

            Examples:
              # Pack a build folder as demo 1.1.0, served at www.example.com/app:
              pkgctl pack dist --name demo --version 1.1.0 --out out \\
                --route www.example.com/app
              # Sign the manifest, and offer the release to 5 % of devices first:
              pkgctl pack dist --name demo --version 1.2.0 --out out --rollout 5 \\
                --sign /etc/pkgctl/keys/release.key
              # A single-page app with .br/.gz siblings, its hashed assets immutable:
              pkgctl pack dist --name demo --version 1.3.0 --out out --precompress \\
                --spa-fallback index.html --immutable 'assets/*'
            """)

    @Argument(help: ArgumentHelp("Directory of the bundle's files.", valueName: "src-dir"))
    var source: String

    @Option(help: "Package name.")
    var name: String

    @Option(help: "Package version.")
    var version: String

    @Option(help: ArgumentHelp("Publishing folder receiving zips/, index/, objects/ and manifest.json.", valueName: "out-dir"))
    var out: String

    @Option(name: .customLong("route"), help: ArgumentHelp("HOST[/PATH] the package serves (repeatable).", valueName: "route"))
    var routes: [String] = []

    @Option(help: ArgumentHelp("Publish to this percentage of devices only; the others keep the version named before.",
                               valueName: "percent"))
    var rollout: Double?

    @Flag(help: "With --rollout: replace a version still rolling out, or lower this version's percentage.")
    var force = false

    @Flag(help: "Also pack X.br and X.gz beside each text file X (html, js, css, json, svg, ...) where they save 10 %+.")
    var precompress = false

    @Option(name: .customLong("image-variants"), help: ArgumentHelp(
        "Also pack X.avif and/or X.webp beside each PNG and JPEG X where they save 10 %+ at SSIM 0.98+ "
            + "(served to engines whose Accept names them).", valueName: "avif,webp"))
    var imageVariants: String?

    @Option(name: .customLong("spa-fallback"), help: ArgumentHelp(
        "A file of the bundle served for navigations that match no file (a single-page app's index.html).",
        valueName: "file"))
    var spaFallback: String?

    @Option(name: .customLong("immutable"), help: ArgumentHelp(
        "Files (a glob; * also crosses /) that never change under their names: served as immutable (repeatable).",
        valueName: "glob"))
    var immutable: [String] = []

    @Option(name: .customLong("header"), help: ArgumentHelp(
        "A response header for some files: 'GLOB: Name: value', e.g. '*.html: Cross-Origin-Opener-Policy: same-origin' (repeatable).",
        valueName: "glob: name: value"))
    var header: [String] = []

    @Option(name: .customLong("delta-from"), help: ArgumentHelp(
        "Write tree deltas to this version from the N newest earlier versions published in out-dir (0: none).",
        valueName: "n"))
    var deltaFrom: Int = 3

    @Flag(help: "Mark the release critical: devices activate it at once, whatever their --activate-window.")
    var critical = false

    @Flag(help: "Accept a version that sorts below the one OUT_DIR/manifest.json names now: devices install it as a downgrade.")
    var allowDowngrade = false

    @Option(help: RuntimeRangeArgument.help)
    var runtime: String?

    @Option(help: ArgumentHelp(
        "A file of URLs devices fetch into their overlay after activating this release: one a line, # comments.",
        valueName: "file"))
    var prefetch: String?

    @OptionGroup var signing: SigningOptions

    func validate() throws {
        if let rollout, !(0...100).contains(rollout) { throw ValidationError("--rollout must be 0 to 100 (got \(rollout))") }
        guard (0...100).contains(deltaFrom) else { throw ValidationError("--delta-from must be 0 to 100") }
        for text in header where PackageHeader(argument: text) == nil {
            throw ValidationError("--header '\(String(text.prefix(200)))' must be 'GLOB: Name: value'")
        }
        _ = try RuntimeRangeArgument.parse(runtime, package: name)
        _ = try variantFormats()
    }

    /// The formats `--image-variants` names: `avif`, `webp` or both, comma-separated.
    private func variantFormats() throws -> [ImageFormat] {
        guard let imageVariants else { return [] }
        guard let formats = ImageVariant.list(imageVariants) else {
            throw ValidationError("--image-variants '\(String(imageVariants.prefix(200)))' must list avif and/or webp, "
                                  + "comma-separated")
        }
        return formats
    }

    func run() throws {
        let prefetchList = try reportingErrors { try prefetch.map(PrefetchList.read) ?? [] }
        let formats = try variantFormats()
        let variants = formats.isEmpty ? nil : ImageVariantWriter(formats: formats)
        var options = PackOptions()
        options.routes = routes
        options.rolloutPercent = rollout
        options.force = force
        options.precompress = precompress
        options.spaFallback = spaFallback
        options.immutable = immutable
        options.headers = header.compactMap(PackageHeader.init(argument:))
        options.deltaFrom = deltaFrom
        options.critical = critical
        options.prefetch = prefetchList
        options.siblingWriters = variants.map { [$0] } ?? []
        options.allowDowngrade = allowDowngrade
        let replaced = try reportingErrors {
            options.runtime = try RuntimeRangeArgument.parse(runtime, package: name)
            return allowDowngrade ? try? PublishingFolder(out).currentRelease(of: name, runtime: options.runtime) : nil
        }
        let entry = try reportingErrors {
            try PublishingFolder(out).pack(source: source, name: name, version: version, options: options,
                                           signer: try signing.signer())
        }
        if let replaced, PackageVersion(entry.version) < PackageVersion(replaced.version) {
            print("\(name) \(entry.version) replaces \(replaced.version), which sorts above it (--allow-downgrade): "
                  + "devices install it as a downgrade")
        }
        print("\(out)/\(entry.url)  \(entry.size) bytes  sha256 \(entry.sha256)")
        for delta in entry.deltas { print("\(out)/\(delta.url)  \(delta.size) bytes  from \(delta.from)") }
        if precompress, let line = try reportingErrors({ try PrecompressionSummary(of: entry, in: out)?.line }) {
            print(line)
        }
        if let variants { print(ImageVariantSummary(report: variants.report).line) }
    }
}
