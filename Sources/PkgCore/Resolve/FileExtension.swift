/// The extensions the resolver knows, recognised from the bytes of a path without allocating.
package enum FileExtension: Sendable {
    case html, js, css, json, map, wasm, svg, png, jpeg, gif, webp, avif, ico, bmp, jxl, apng
    case woff2, woff, ttf, otf, txt, xml, mp4, webm, mp3, ogg, wav, m4a, pdf, webmanifest, csv, md
    case unknown

    package var isImage: Bool {
        switch self {
        case .svg, .png, .jpeg, .gif, .webp, .avif, .ico, .bmp, .jxl, .apng: return true
        default: return false
        }
    }
}

/// The extension of the last segment of `path`, lower-cased; looked up as a
/// packed integer so the hot path does not allocate.
package func fileExtension(of path: some StringProtocol) -> FileExtension {
    if let found = path.utf8.withContiguousStorageIfAvailable(fileExtension(ofBytes:)) { return found }
    return String(path).utf8.withContiguousStorageIfAvailable(fileExtension(ofBytes:)) ?? .unknown
}

private func fileExtension(ofBytes path: UnsafeBufferPointer<UInt8>) -> FileExtension {
    var start = path.count
    while start > 0 {
        let byte = path[start - 1]
        if byte == UInt8(ascii: "/") { return .unknown }
        if byte == UInt8(ascii: ".") { break }
        if path.count - start >= 11 { return .unknown }
        start -= 1
    }
    let length = path.count - start
    guard start > 0, length > 0 else { return .unknown }
    let ext = path[start...]
    if length > 8 { return extensionLong(ext) }
    var key: UInt64 = 0
    for byte in ext { key = key << 8 | UInt64(lowerASCII(byte)) }
    return extensionTable[key] ?? .unknown
}

private func extensionLong(_ bytes: some Sequence<UInt8>) -> FileExtension {
    let text = String(decoding: bytes.map(lowerASCII), as: UTF8.self)
    return text == "webmanifest" ? .webmanifest : .unknown
}

private func packed(_ text: String) -> UInt64 {
    text.utf8.reduce(0) { $0 << 8 | UInt64($1) }
}

private let extensionTable: [UInt64: FileExtension] = {
    let names: [(String, FileExtension)] = [
        ("html", .html), ("htm", .html), ("js", .js), ("mjs", .js), ("cjs", .js), ("css", .css),
        ("json", .json), ("map", .map), ("wasm", .wasm), ("svg", .svg), ("png", .png),
        ("jpg", .jpeg), ("jpeg", .jpeg), ("gif", .gif), ("webp", .webp), ("avif", .avif),
        ("ico", .ico), ("bmp", .bmp), ("jxl", .jxl), ("apng", .apng), ("woff2", .woff2),
        ("woff", .woff), ("ttf", .ttf), ("otf", .otf), ("txt", .txt), ("xml", .xml),
        ("mp4", .mp4), ("webm", .webm), ("mp3", .mp3), ("ogg", .ogg), ("wav", .wav),
        ("m4a", .m4a), ("pdf", .pdf), ("csv", .csv), ("md", .md),
    ]
    var table: [UInt64: FileExtension] = [:]
    for (name, value) in names { table[packed(name)] = value }
    return table
}()
