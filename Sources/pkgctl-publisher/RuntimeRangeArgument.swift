import ArgumentParser
import PkgCore

/// `--runtime RANGE` of the publishing commands, checked in `validate()` so a range that does
/// not parse is one `pkgctl:` line naming the package (exit 64).
enum RuntimeRangeArgument {
    /// The range `text` gives, nil for no text; a refusal names `package`.
    static func parse(_ text: String?, package: String) throws -> RuntimeRange? {
        guard let text else { return nil }
        guard let range = RuntimeRange(text) else {
            throw ValidationError("--runtime '\(String(text.prefix(100)).escapedForMessage)' of package "
                                  + "\(String(package.prefix(100)).escapedForMessage) is not a semver range: "
                                  + (RuntimeRange.refusal(text) ?? "unreadable"))
        }
        return range
    }

    /// The help text.
    static let help = ArgumentHelp(
        "The release of the package for host runtimes in this semver range (e.g. '>=2.3.0 <3.0.0', '2.x', '^3.1'); "
            + "a package has one release per range.", valueName: "range")
}
