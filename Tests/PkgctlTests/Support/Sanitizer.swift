import Glibc

/// Whether the tests, and the `pkgctl` beside them (built the same way), run under
/// ThreadSanitizer or AddressSanitizer (`scripts/test --sanitize`): the sanitizer's
/// runtime is linked into the test binary and exports its entry point.
enum Sanitizer {
    static let isActive = ["__tsan_init", "__asan_init"].contains { (symbol: String) in
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol) != nil
    }
}
