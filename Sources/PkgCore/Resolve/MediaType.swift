/// Content types of local files, by extension. Text types carry `; charset=utf-8`.
public enum MediaType {
    /// The `Content-Type` for a file at `path`; `fallback` decides for unknown
    /// extensions (an html request for `/about` is html).
    ///
    /// ```swift
    /// MediaType.forPath("/app/main.mjs") // "text/javascript; charset=utf-8"
    /// ```
    public static func forPath(_ path: some StringProtocol, fallback: ResourceClass = .other) -> String {
        contentType(fileExtension(of: path), fallback: fallback)
    }

    static func contentType(_ ext: FileExtension, fallback: ResourceClass) -> String {
        switch ext {
        case .html: return "text/html; charset=utf-8"
        case .js: return "text/javascript; charset=utf-8"
        case .css: return "text/css; charset=utf-8"
        case .json: return "application/json; charset=utf-8"
        case .map: return "application/json; charset=utf-8"
        case .webmanifest: return "application/manifest+json; charset=utf-8"
        case .wasm: return "application/wasm"
        case .svg: return "image/svg+xml; charset=utf-8"
        case .png, .apng: return "image/png"
        case .jpeg: return "image/jpeg"
        case .gif: return "image/gif"
        case .webp: return "image/webp"
        case .avif: return "image/avif"
        case .ico: return "image/x-icon"
        case .bmp: return "image/bmp"
        case .jxl: return "image/jxl"
        case .woff2: return "font/woff2"
        case .woff: return "font/woff"
        case .ttf: return "font/ttf"
        case .otf: return "font/otf"
        case .txt: return "text/plain; charset=utf-8"
        case .md: return "text/markdown; charset=utf-8"
        case .csv: return "text/csv; charset=utf-8"
        case .xml: return "application/xml; charset=utf-8"
        case .mp4: return "video/mp4"
        case .webm: return "video/webm"
        case .mp3: return "audio/mpeg"
        case .ogg: return "audio/ogg"
        case .wav: return "audio/wav"
        case .m4a: return "audio/mp4"
        case .pdf: return "application/pdf"
        case .unknown:
            switch fallback {
            case .html: return "text/html; charset=utf-8"
            case .script: return "text/javascript; charset=utf-8"
            case .style: return "text/css; charset=utf-8"
            case .image, .other: return "application/octet-stream"
            }
        }
    }
}
