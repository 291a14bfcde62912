import CPkgResolver
import FuzzSupport
import Glibc

/// Random sequences of calls through the C ABI (`pkgctl/resolver.h`), as a C host makes
/// them: create, start (fixture files, a refused path, origin misses, URLs and headers made
/// of input bytes; each planned first with `pkgctl_resolver_plan`), stop (on the dispatching thread, inside a body callback, from another
/// thread while dispatching), consumed (also past what was delivered, up to SIZE_MAX),
/// dispatch, destroy with tasks still running, and create with bad options. Checked on every
/// call: no callback after its task's stop returned or after destroy, one head before the
/// body, one end and last with a one-line message on failure, a full 200 body equal to the
/// file, never more unconsumed bytes than the window and a chunk, every task ended within
/// 5 s once its host consumed everything, counters equal to what the callbacks saw (by both
/// counters calls), and a plan written within its struct_size whose offline or refused
/// source the task's end confirms.
/// ASan (the fuzz build) checks every pointer handed across.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResolverABI(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var script = ByteScript(FuzzInput(data, size).bytes)
    var session = ABISession(settings: script.next())
    var resolvers = 1
    for _ in 0..<96 where !script.isEmpty {
        switch script.next() % 8 {
        case 0, 1: session.start(&script)
        case 2: session.stop(script.next(), mode: script.next())
        case 3: session.consume(script.next(), amount: script.next())
        case 4: session.dispatch(waitingUpTo: 0)
        case 5: session.dispatch(waitingUpTo: Int32(script.next() % 20))
        case 6 where resolvers < 4:
            session.finish(abandon: script.next() & 1 != 0)
            session = ABISession(settings: script.next())
            resolvers += 1
        default: refusedCreate(script.next())
        }
    }
    session.finish(abandon: script.next() & 1 != 0)
    return 0
}

@main
enum FuzzResolverABIMain {
    static func main() { runFuzzer(fuzzResolverABI) }
}

/// `pkgctl_resolver_create` with options it must refuse (a short `struct_size`, no store
/// root, or a store root that is a file): NULL, and a one-line message that fits the
/// caller's buffer, however small, NUL included.
private func refusedCreate(_ byte: UInt8) {
    var options = pkgctl_resolver_options()
    options.struct_size = byte & 1 == 0 ? 8 : UInt32(MemoryLayout<pkgctl_resolver_options>.size)
    let errorSize = Int(byte >> 2)  // 0...63: an exact allocation, so ASan sees a write past it
    let error = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, errorSize))
    defer { error.deallocate() }
    error.initialize(repeating: 0x7f, count: max(1, errorSize))
    let root = byte & 2 == 0 ? nil : strdup("/etc/hostname")
    defer { free(root) }
    options.store_root = UnsafePointer(root)
    let made = pkgctl_resolver_create(&options, errorSize == 0 ? nil : error, errorSize)
    if let made {
        // Only a whole options struct with a store root reaches here; a store root that is a
        // file may still make a resolver (the store is read lazily): nothing is wrong with that.
        fuzzCheck(byte & 3 == 3, "created with options it must refuse (byte \(byte))")
        pkgctl_resolver_destroy(made)
        return
    }
    guard errorSize > 0 else { return }
    let length = strnlen(error, errorSize)
    fuzzCheck(length < errorSize, "the error message is not NUL-terminated within its \(errorSize) bytes")
    fuzzCheck(memchr(error, 0x0a, length) == nil, "a multi-line error message")
    if errorSize > 1 { fuzzCheck(length > 0, "an empty error message") }
}
