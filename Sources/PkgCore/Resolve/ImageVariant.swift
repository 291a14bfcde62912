/// A lighter representation a package may hold a PNG or JPEG in beside the file itself:
/// `X.avif` or `X.webp` next to `X` (`img/logo.png.webp`), written by `pkgctl pack
/// --image-variants` or by the site's own build. The resolver answers a request for `X` with
/// the best one its `Accept` names, under `X`'s URL, with the variant's type and `Vary: Accept`.
public enum ImageVariant: String, Sendable, Hashable, CaseIterable {
    case avif
    case webp

    /// The suffix of the variant's file name: `.avif` or `.webp`.
    public var fileSuffix: String { "." + rawValue }

    /// Its `Content-Type`.
    public var mediaType: String { "image/" + rawValue }

    /// The variants a comma-separated list names (`avif,webp`, `WebP`; spaces ignored), in its
    /// order; nil when an item is none (`pack --image-variants`, `update --accept-images`).
    public static func list(_ text: String) -> [ImageVariant]? {
        let variants = text.split(separator: ",", omittingEmptySubsequences: false).map {
            ImageVariant(rawValue: $0.filter { $0 != " " }.lowercased())
        }
        guard !variants.isEmpty, variants.allSatisfy({ $0 != nil }) else { return nil }
        return variants.compactMap { $0 }
    }

    /// Whether a file at `path` is one the resolver looks for variants of (a PNG or JPEG).
    static func mayHaveVariants(_ path: some StringProtocol) -> Bool {
        switch fileExtension(of: path) {
        case .png, .jpeg: return true
        default: return false
        }
    }

    /// The variant to answer with, of those `available`, for an `Accept` header: AVIF, then
    /// WebP, each only when the header names its type with a q-value above 0. `image/*` and
    /// `*/*` do not count: every engine that decodes these formats names them, and a client
    /// that sends a wildcard (curl, an old engine) may not decode them. Nil: the original.
    public static func preferred(for accept: String?, among available: Set<ImageVariant>) -> ImageVariant? {
        guard let accept, !available.isEmpty else { return nil }
        let named = named(in: accept)
        return Self.allCases.first { available.contains($0) && named[$0] == true }
    }

    /// Whether `accept` refuses this variant by name (`image/webp;q=0`).
    func isRefused(by accept: String?) -> Bool {
        accept.map { Self.named(in: $0)[self] == false } ?? false
    }

    /// The variants `accept` names by their type, each with whether its q-value is above 0.
    private static func named(in accept: String) -> [ImageVariant: Bool] {
        var named: [ImageVariant: Bool] = [:]
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let range = parts.first?.trimmingSpaces.lowercased(),
                  let variant = Self.allCases.first(where: { $0.mediaType == range }) else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let text = parameter.trimmingSpaces.lowercased()
                guard text.hasPrefix("q=") else { return false }
                return Double(text.dropFirst(2)).map { $0 <= 0 } ?? false
            }
            named[variant] = !refused
        }
        return named
    }
}
