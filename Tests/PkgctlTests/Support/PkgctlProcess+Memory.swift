import Testing

extension PkgctlProcess {
    /// Runs the uninstrumented pkgctl (``UninstrumentedBuild``) under a Python parent that prints
    /// the child's peak RSS (KiB) on its last stderr line, `maxrss-kb N`; returns the result
    /// without that line, and the peak. Without an uninstrumented build it runs this build's pkgctl
    /// and returns no peak: a sanitizer's shadow memory and allocator make the figure their own.
    static func runMeasuringMemory(_ arguments: [String]) throws -> (result: Result, peakKB: Int?) {
        guard let measured = UninstrumentedBuild.pkgctl else { return (try run(arguments), nil) }
        let launcher = ["/usr/bin/python3", "-c", """
            import resource, subprocess, sys
            status = subprocess.call(sys.argv[1:])
            print("maxrss-kb %d" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
            sys.exit(status)
            """]
        var result = try run(arguments, launcher: launcher, executable: measured)
        var lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        let popped = lines.popLast()
        let last = try #require(popped, "no maxrss line")
        let peak = try #require(Int(last.dropFirst("maxrss-kb ".count)), "\(result.stderr)")
        result.stderr = lines.map { $0 + "\n" }.joined()
        return (result, peak)
    }
}
