import Glibc
import PkgCore

/// The rule of the C ABI's structs that start with `uint32_t struct_size` (pkgctl/resolver.h,
/// SIZED STRUCTS): a struct may gain fields at its end, so the library reads or writes only
/// the bytes the caller's `struct_size` covers, never the caller's whole `MemoryLayout` size.
enum SizedStruct {
    /// The largest `struct_size` taken as one: a bigger one is garbage, not a newer header,
    /// and reading that far could run past the caller's memory.
    static let largestSize = 4096

    /// The caller's `struct_size` (the first four bytes at `pointer`).
    static func size(at pointer: UnsafeRawPointer) -> Int {
        Int(pointer.loadUnaligned(as: UInt32.self))
    }

    /// Reads a `T` the caller filled at `pointer` (named `name` in messages): the bytes its
    /// `struct_size` covers, at least `minimum` (the fields of the struct's first version);
    /// fields past a smaller `struct_size` stay zero, their defaults. A larger `struct_size`
    /// than `T`'s is accepted when the bytes past `T` are all zero, and refused otherwise: they
    /// would be options of a newer header this library cannot honour.
    static func read<T>(_ pointer: UnsafeRawPointer, as type: T.Type, name: String, minimum: Int) throws(PkgError) -> T {
        let size = size(at: pointer), known = MemoryLayout<T>.size
        guard size >= minimum else {
            throw PkgError(.invalidArgument, "\(name).struct_size is \(size), less than the \(minimum) bytes of its "
                           + "first version (ABI 0): set it to sizeof(\(name))")
        }
        guard size <= largestSize else {
            throw PkgError(.invalidArgument, "\(name).struct_size is \(size), over \(largestSize): not a size of "
                           + "\(name); set it to sizeof(\(name))")
        }
        if size > known, let offset = (known..<size).first(where: { pointer.load(fromByteOffset: $0, as: UInt8.self) != 0 }) {
            throw PkgError(.invalidArgument, "\(name).struct_size is \(size) and byte \(offset) is set, past the \(known) "
                           + "bytes this library knows: an option of a newer pkgctl/resolver.h it cannot honour")
        }
        let value = UnsafeMutableRawPointer.allocate(byteCount: known, alignment: MemoryLayout<T>.alignment)
        defer { value.deallocate() }
        value.initializeMemory(as: UInt8.self, repeating: 0, count: known)
        value.copyMemory(from: pointer, byteCount: min(size, known))
        return value.load(as: T.self)
    }

    /// Writes the fields of `value` that lie whole within the caller's `struct_size` at
    /// `pointer`, and no byte past them (nor `struct_size` itself). `fieldEnds`: the offset
    /// where each field after `struct_size` ends, in order. Returns where the last field
    /// written ends, 0 when none fits.
    static func write<T>(_ value: T, to pointer: UnsafeMutableRawPointer, fieldEnds: [Int]) -> Int {
        let size = size(at: UnsafeRawPointer(pointer))
        guard let end = fieldEnds.last(where: { $0 <= size }) else { return 0 }
        let start = MemoryLayout<UInt32>.size
        withUnsafeBytes(of: value) { bytes in
            (pointer + start).copyMemory(from: bytes.baseAddress! + start, byteCount: end - start)
        }
        return end
    }
}
