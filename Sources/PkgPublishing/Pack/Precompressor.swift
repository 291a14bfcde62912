import CPrecompression
import Glibc
import PkgCore

/// Writes the `X.br` and `X.gz` siblings of a bundle's text files (html, js,
/// css, json, source maps, svg, xml, plain text, wasm), which the resolver
/// serves to clients that accept them: brotli at quality 11, gzip at level 9,
/// both deterministic. A coding is kept only when it saves at least a tenth of
/// the file and at least the `Content-Encoding` and `Vary` fields it adds
/// (``minimumSaving``); files under ``minimumSize`` and siblings the bundle
/// already has are left alone.
public enum Precompressor {
    /// Files smaller than this are left as they are.
    public static let minimumSize = 256
    /// Bytes a coding must save, at least: about what its two header fields cost.
    public static let minimumSaving = 64
    /// Larger files are skipped (zlib takes 32-bit lengths; packing stays bounded).
    public static let maximumSize = 256 << 20

    /// Compresses each eligible file of `files` into `staging` (a directory the caller owns and
    /// removes), under its bundle name plus `.br` / `.gz`; returns the files written, in the
    /// order of `files`. The files are compressed on up to `workers` threads (nil: one a
    /// processor); what is written does not depend on it.
    public static func encode(_ files: [BundleFile], into staging: String, workers: Int? = nil) throws -> [BundleFile] {
        let names = Set(files.map(\.name))
        let compressible = files.filter { isCompressible($0.name) }
        return try WorkerThreads.map(compressible.count, workers: workers ?? WorkerThreads.available) { index in
            try encode(compressible[index], besides: names, into: staging)
        }.flatMap { $0 }
    }

    /// The `.br` and `.gz` siblings of `file` worth keeping that the bundle (`names`) lacks,
    /// written into `staging`.
    private static func encode(_ file: BundleFile, besides names: Set<String>, into staging: String) throws -> [BundleFile] {
        var info = stat()
        guard stat(file.path, &info) == 0 else { throw fileSystemError("stat", file.path) }
        guard (minimumSize...maximumSize).contains(Int(info.st_size)) else { return [] }
        guard let bytes = try FileSystem.read(file.path) else { throw fileSystemError("read", file.path) }
        var written: [BundleFile] = []
        for coding in ContentCoding.allCases where !names.contains(file.name + coding.fileSuffix) {
            let encoded = try encode(bytes, as: coding, path: file.path)
            guard encoded.count * 10 <= bytes.count * 9, encoded.count + Self.minimumSaving <= bytes.count else {
                continue
            }
            let name = file.name + coding.fileSuffix
            let target = staging + "/" + name
            try FileSystem.makeDirectories(PathName.parent(target))
            try FileSystem.writeAtomically(encoded, to: target)
            written.append(BundleFile(name: name, path: target))
        }
        return written
    }

    /// `bytes` in `coding`.
    public static func encode(_ bytes: [UInt8], as coding: ContentCoding, path: String) throws -> [UInt8] {
        let bound = coding == .brotli ? pkg_brotli_bound(bytes.count) : pkg_gzip_bound(bytes.count)
        var output = [UInt8](repeating: 0, count: max(bound, 64))
        var length = output.count
        let result = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                coding == .brotli
                    ? pkg_brotli(input.baseAddress, input.count, out.baseAddress, &length)
                    : pkg_gzip(input.baseAddress, input.count, out.baseAddress, &length)
            }
        }
        guard result == 0 else { throw PkgError(.fileSystem, "precompress \(path): \(coding.rawValue) encoding failed") }
        output.removeSubrange(length...)
        return output
    }

    /// Whether files with this name are text (or wasm) worth compressing.
    static func isCompressible(_ name: String) -> Bool {
        switch fileExtension(of: name) {
        case .html, .js, .css, .json, .map, .svg, .txt, .xml, .webmanifest, .csv, .md, .wasm: return true
        default: return false
        }
    }
}
