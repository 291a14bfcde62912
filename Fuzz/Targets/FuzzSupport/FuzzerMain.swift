import CFuzzerDriver
import Glibc

/// Runs libFuzzer with the process's arguments over `target` (a target's
/// `LLVMFuzzerTestOneInput`) and exits with its status. Each target's `@main` calls it.
public func runFuzzer(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}
