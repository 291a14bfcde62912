import Foundation

/// Whether `python3` can import `module` (a test tool from PyPI that `scripts/setup --test` installs).
func pythonModuleIsInstalled(_ module: String) -> Bool {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["python3", "-c", "import " + module]
    probe.standardError = FileHandle.nullDevice
    guard (try? ProcessLaunch.run(probe)) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}
