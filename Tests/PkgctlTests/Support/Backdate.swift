import Foundation

/// Sets `path`'s modification time `seconds` into the past, so an origin's
/// `Last-Modified` for it is a strong validator (RFC 9110 §8.8.2.2: at least a
/// second before the response's `Date`) and pkgctl keeps it for a 304 next time.
func backdate(_ path: String, seconds: Int = 10) throws {
    let then = Date().addingTimeInterval(-Double(seconds))
    try FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: path)
}
