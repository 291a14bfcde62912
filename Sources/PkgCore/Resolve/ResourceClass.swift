/// What kind of resource a request asks for; decides what happens on a miss
/// (see ``Resolver``): html, script and style are written through to the
/// overlay, images only when enabled, everything else is passed to the origin.
public enum ResourceClass: String, Sendable, Hashable, CaseIterable {
    case html, script, style, image, other

    /// Classifies a request by its `Accept` header and its path's extension.
    ///
    /// Order matters: `Accept` containing `text/html` wins first (browsers'
    /// document Accept also lists `image/avif,image/webp`); then `.js`/`.mjs` →
    /// script (browsers send `*/*` for scripts); `.css` or Accept `text/css` →
    /// style; Accept `image/…` or an image extension → image; the rest → other.
    ///
    /// ```swift
    /// ResourceClass.classify(accept: "text/css,*/*;q=0.1", path: "/app/a.css") // .style
    /// ```
    public static func classify(accept: String?, path: some StringProtocol) -> ResourceClass {
        if let accept, accept.containsASCIICaseInsensitive("text/html") { return .html }
        let ext = fileExtension(of: path)
        switch ext {
        case .js: return .script
        case .css: return .style
        default: break
        }
        if let accept {
            if accept.containsASCIICaseInsensitive("text/css") { return .style }
            if accept.containsASCIICaseInsensitive("image/") { return .image }
        }
        if ext.isImage { return .image }
        return .other
    }
}
