import Glibc
import PkgCommandLine

/// The publisher's commands: not in this binary (a device runs none of them, and their image
/// codecs and fleet tooling would only weigh on it) but in `pkgctl-publisher`, which the
/// package of that name installs. `pkgctl pack …` runs it in this process's place, with the same
/// arguments, as git runs `git-foo` for `git foo`; so a user has one command line either way.
enum PublisherSide {
    /// The commands `pkgctl-publisher` runs.
    static let commands = ["pack", "publish", "prune", "promote", "rollout", "revoke", "sign", "timestamp",
                           "fleet", "keygen", "root"]
    /// When `words` (the arguments after the program's name) name a publisher's command
    /// (`pack …`, `help pack`), runs `pkgctl-publisher` with them and does not return; with no
    /// such binary, says in one line which package to install and exits 1.
    static func runIfNamed(_ words: [String]) {
        guard let name = commandNamed(in: words) else { return }
        guard let binary = binary() else {
            Output.printError("'\(name)' is a publisher's command, which comes in the package pkgctl-publisher; "
                              + "it is not installed here (apt install pkgctl-publisher)")
            exit(ExitStatus.failure)
        }
        let arguments = (["pkgctl"] + words).map { strdup($0) } + [nil]
        execv(binary, arguments)
        Output.printError("cannot run \(binary): \(String(cString: strerror(errno)))")
        exit(ExitStatus.failure)
    }

    private static func commandNamed(in words: [String]) -> String? {
        guard let first = words.first else { return nil }
        if commands.contains(first) { return first }
        if first == "help", words.count > 1, commands.contains(words[1]) { return words[1] }
        return nil
    }

    /// `pkgctl-publisher` beside this binary (a build folder), else in `../libexec/pkgctl` from
    /// its folder (the packages' layout: `/usr/libexec/pkgctl/` for `/usr/bin/pkgctl`, wherever
    /// they are unpacked); nil when neither is there. Only there: a build of `pkgctl` never runs
    /// an installed publisher of another version.
    private static func binary() -> String? {
        var own = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &own, Int(PATH_MAX))
        guard length > 0 else { return nil }
        let path = String(decoding: own[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let folder = String(path[..<slash])
        return [folder + "/pkgctl-publisher", folder + "/../libexec/pkgctl/pkgctl-publisher"].first { access($0, X_OK) == 0 }
    }
}
