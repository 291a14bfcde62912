import Testing

extension PkgctlProcess {
    /// Runs pkgctl under a Python parent that prints the child's peak RSS (KiB) on its last
    /// stderr line, `maxrss-kb N`; returns the result without that line, and the peak.
    static func runMeasuringMemory(_ arguments: [String]) throws -> (result: Result, peakKB: Int) {
        let launcher = ["/usr/bin/python3", "-c", """
            import resource, subprocess, sys
            status = subprocess.call(sys.argv[1:])
            print("maxrss-kb %d" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
            sys.exit(status)
            """]
        var result = try run(arguments, launcher: launcher)
        var lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        let popped = lines.popLast()
        let last = try #require(popped, "no maxrss line")
        let peak = try #require(Int(last.dropFirst("maxrss-kb ".count)), "\(result.stderr)")
        result.stderr = lines.map { $0 + "\n" }.joined()
        return (result, peak)
    }
}
