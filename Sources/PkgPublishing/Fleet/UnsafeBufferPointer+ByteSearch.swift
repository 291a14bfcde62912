import CSystemShims
import PkgCore

extension UnsafeBufferPointer<UInt8> {
    /// The offset just past the first `needle` in these bytes, by `memmem(3)`; nil when absent.
    func offset(after needle: StaticString) -> Int? {
        guard let base = baseAddress, count >= needle.utf8CodeUnitCount,
              let found = pkg_memmem(base, UInt(count), needle.utf8Start, UInt(needle.utf8CodeUnitCount)) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + needle.utf8CodeUnitCount
    }
}
