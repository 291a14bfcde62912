import FoundationEssentials

/// One package of a ``Manifest``: which version to install and where its zip is.
public struct ManifestEntry: Codable, Sendable, Hashable {
    /// Package name: letters, digits, `.`, `_`, `-`; used as a directory name.
    public var name: String
    /// Version text, compared with ``PackageVersion`` ordering.
    public var version: String
    /// Absolute URL of the zip, or one relative to the manifest's URL.
    public var url: String
    /// Lower-case hex SHA-256 of the zip.
    public var sha256: String
    /// Size of the zip in bytes.
    public var size: UInt64
    /// Hosts with optional path prefixes the package serves, e.g. `www.example.com/app`.
    public var routes: [String]
    /// A staged rollout of ``version``; nil: every device installs it.
    public var rollout: Rollout?
    /// Withdrawn versions: never installed, and a device running one switches back.
    public var revoked: [String]
    /// The version's per-file index, for delta updates; nil: the zip only.
    public var index: IndexReference?
    /// A file of the package (`index.html`) served for navigations that match no
    /// file, so a single-page app's deep links work (as Workbox's
    /// `navigateFallback` or nginx's `try_files $uri /index.html`); nil: none.
    public var spaFallback: String?
    /// Tree deltas to this version from earlier ones, for devices running one of them.
    public var deltas: [DeltaReference] = []
    /// Globs (`fnmatch`, `*` also crossing `/`) of files the publisher says never change
    /// under their names: served with `Cache-Control: immutable` like content-hashed names.
    public var immutable: [String] = []
    /// Response headers the publisher declares for some of the package's files.
    public var headers: [PackageHeader] = []
    /// A release that becomes active at once, whatever the device's activation windows
    /// (a security fix); written only when true.
    public var critical = false
    /// The host runtimes the release fits, a ``RuntimeRange`` as written (`>=2.3.0 <3.0.0`);
    /// nil: any. A manifest may list one package once per range.
    public var runtime: String?
    /// Request URLs (`app://www.example.com/app/img/hero.png`) a device fetches into its overlay
    /// once it has activated the release, for offline use: at most ``PrefetchList/maximumCount``,
    /// each a URL as ``PrefetchList`` says, none twice; under a route of the package or not.
    public var prefetch: [String] = []

    /// An entry; call ``validate(source:)`` before trusting it.
    public init(name: String, version: String, url: String, sha256: String, size: UInt64, routes: [String] = [],
                rollout: Rollout? = nil, revoked: [String] = []) {
        self.name = name
        self.version = version
        self.url = url
        self.sha256 = sha256
        self.size = size
        self.routes = routes
        self.rollout = rollout
        self.revoked = revoked
    }

    enum CodingKeys: String, CodingKey {
        case name, version, url, sha256, size, routes, rollout, revoked, index, spaFallback, deltas, immutable, headers
        case critical, runtime, prefetch
    }

    /// Decodes an entry; `routes`, `rollout` and `revoked` may be absent and `size` must not be negative.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        version = try container.decode(String.self, forKey: .version)
        url = try container.decode(String.self, forKey: .url)
        sha256 = try container.decode(String.self, forKey: .sha256)
        // Decoded as signed: Foundation reports a negative UInt64 as "not valid JSON".
        let size = try container.decode(Int64.self, forKey: .size)
        guard size >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .size, in: container,
                                                   debugDescription: "must be a non-negative number of bytes")
        }
        self.size = UInt64(size)
        routes = try container.decodeIfPresent([String].self, forKey: .routes) ?? []
        rollout = try container.decodeIfPresent(Rollout.self, forKey: .rollout)
        revoked = try container.decodeIfPresent([String].self, forKey: .revoked) ?? []
        index = try container.decodeIfPresent(IndexReference.self, forKey: .index)
        spaFallback = try container.decodeIfPresent(String.self, forKey: .spaFallback)
        deltas = try container.decodeIfPresent([DeltaReference].self, forKey: .deltas) ?? []
        immutable = try container.decodeIfPresent([String].self, forKey: .immutable) ?? []
        headers = try container.decodeIfPresent([PackageHeader].self, forKey: .headers) ?? []
        critical = try container.decodeIfPresent(Bool.self, forKey: .critical) ?? false
        runtime = try container.decodeIfPresent(String.self, forKey: .runtime)
        prefetch = try container.decodeIfPresent([String].self, forKey: .prefetch) ?? []
    }

    /// Encodes the entry, leaving out an absent rollout and an empty revocation list.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(version, forKey: .version)
        try container.encode(url, forKey: .url)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(size, forKey: .size)
        try container.encode(routes, forKey: .routes)
        try container.encodeIfPresent(rollout, forKey: .rollout)
        if !revoked.isEmpty { try container.encode(revoked, forKey: .revoked) }
        try container.encodeIfPresent(index, forKey: .index)
        try container.encodeIfPresent(spaFallback, forKey: .spaFallback)
        if !deltas.isEmpty { try container.encode(deltas, forKey: .deltas) }
        if !immutable.isEmpty { try container.encode(immutable, forKey: .immutable) }
        if !headers.isEmpty { try container.encode(headers, forKey: .headers) }
        if critical { try container.encode(critical, forKey: .critical) }
        try container.encodeIfPresent(runtime, forKey: .runtime)
        if !prefetch.isEmpty { try container.encode(prefetch, forKey: .prefetch) }
    }

    /// Checks that name and version are safe directory names and the hash is SHA-256 hex.
    public func validate(source: String) throws {
        func fail(_ reason: String) -> PkgError {
            PkgError(.malformedManifest, "manifest \(source): package '\(name.escapedForMessage)': \(reason)")
        }
        guard Self.isSafeComponent(name) else { throw fail("name must be 1-128 of [A-Za-z0-9._+-], not starting with '.'") }
        guard Self.isSafeComponent(version) else {
            throw fail("version '\(version.escapedForMessage)' must be 1-128 of [A-Za-z0-9._+-], not starting with '.'")
        }
        guard version != StoreLayout.currentLinkName else {
            throw fail("version '\(StoreLayout.currentLinkName)' is reserved")
        }
        guard sha256.isSHA256Hex else {
            throw fail("sha256 must be 64 lower-case hex digits")
        }
        guard !url.isEmpty else { throw fail("url is empty") }
        for route in routes where PackageRoute(route) == nil {
            throw fail("route '\(route.escapedForMessage)' must be HOST or HOST/PATH without a scheme")
        }
        for version in revoked where !Self.isSafeComponent(version) {
            throw fail("revoked version '\(version.escapedForMessage)' must be 1-128 of [A-Za-z0-9._+-]")
        }
        if let spaFallback, case .failure(let refusal) = EntryName.validate(spaFallback) {
            throw fail("spaFallback '\(spaFallback.escapedForMessage)': \(refusal.reason)")
        }
        if let runtime, let refusal = RuntimeRange.refusal(runtime) {
            throw fail("runtime '\(runtime.escapedForMessage)' is not a semver range: \(refusal)")
        }
        try rollout?.validate(source: source, package: name)
        if let index {
            guard index.sha256.isSHA256Hex else {
                throw fail("index.sha256 must be 64 lower-case hex digits")
            }
            guard !index.url.isEmpty else { throw fail("index.url is empty") }
        }
        for delta in deltas { try delta.validate(fail) }
        for glob in immutable where !Self.isValidGlob(glob) {
            throw fail("immutable '\(glob.escapedForMessage)' must be 1-256 bytes, relative, without control characters")
        }
        for header in headers {
            if let refusal = header.refusal() { throw fail("header: " + refusal) }
        }
        if let refusal = PrefetchList.refusal(of: prefetch) { throw fail("prefetch " + refusal) }
    }

    /// ``runtime`` parsed; nil: any runtime (or, before ``validate(source:)``, not a range).
    public var runtimeRange: RuntimeRange? { runtime.flatMap(RuntimeRange.init) }

    /// Whether the release fits a host at `runtime`: always when either is absent (no range:
    /// any runtime; no runtime stated: ranges are not considered).
    public func fits(_ runtime: RuntimeVersion?) -> Bool {
        guard let runtime, let range = runtimeRange else { return true }
        return range.contains(runtime)
    }

    /// The zip's absolute URL: `url` resolved against the manifest's URL.
    public func resolvedURL(relativeTo manifestURL: String) throws -> String {
        try Self.resolve(url, relativeTo: manifestURL)
    }

    /// `url` made absolute against the manifest's URL.
    static func resolve(_ url: String, relativeTo manifestURL: String) throws -> String {
        if let absolute = URL(string: url), absolute.scheme != nil { return absolute.absoluteString }
        guard let base = URL(string: manifestURL), let resolved = URL(string: url, relativeTo: base) else {
            throw PkgError(.malformedManifest, "manifest \(manifestURL): url '\(url.escapedForMessage)' is not a URL")
        }
        return resolved.absoluteString
    }

    static func isValidGlob(_ glob: String) -> Bool {
        (1...256).contains(glob.utf8.count) && !glob.hasPrefix("/") && !glob.utf8.contains { $0 < 0x20 || $0 == 0x7f }
    }

    package static func isSafeComponent(_ text: String) -> Bool {
        guard (1...128).contains(text.utf8.count), !text.hasPrefix(".") else { return false }
        return text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "-"), UInt8(ascii: "+"):
                return true
            default:
                return false
            }
        }
    }
}
