import ArgumentParser
import PkgCore

/// `--upstream` and `--ca-file`: where a resolver command fetches what no package or the overlay holds.
struct OriginOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Base URL replacing https://HOST for fallbacks, e.g. https://127.0.0.1:8443",
                               valueName: "url"))
    var upstream: String?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("PEM CA bundle for the origin's TLS.", valueName: "pem"))
    var caFile: String?

    /// The resolver's settings these options give.
    var configuration: ResolverConfiguration { ResolverConfiguration(upstream: upstream, caFile: caFile) }
}
