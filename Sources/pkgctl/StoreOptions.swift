import ArgumentParser
import Configuration
import PkgCore

/// `--root` and `--config`, shared by every command that works on a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Store directory.",
        discussion: "Default: $PKGCTL_ROOT, else the config file's root, else $XDG_DATA_HOME/pkgctl, "
            + "else ~/.local/share/pkgctl.",
        valueName: "dir"))
    var root: String?

    @Option(name: .long, help: ArgumentHelp(
        "Config file (default: $PKGCTL_CONFIG, else /etc/pkgctl/config.json when it exists).",
        valueName: "file"))
    var config: String?

    /// The settings' layers with this command's `flags` on top (and `--root`).
    /// A config file that cannot be used ends the command with its one-line error
    /// (and, with `json`, the same failure as JSON on stdout).
    func layers(flags: FlagSettings = FlagSettings(), json: Bool = false) async throws -> ConfigLayers {
        var flags = flags
        flags.set("root", root)
        do {
            return try await ConfigLayers(flags: flags.values, configFile: config)
        } catch let error as ConfigError {
            throw try reportedExit(error, json: json)
        }
    }

    /// The store `layers` name; a root setting that cannot be used throws its `ConfigError`.
    func packageStore(_ layers: ConfigLayers) throws -> PackageStore {
        PackageStore(root: try layers.string("root") ?? StoreLayout.defaultRoot())
    }

    /// The store the flags, environment and config file name; a bad setting ends the
    /// command with its one-line error (and, with `json`, as JSON on stdout).
    func packageStore(json: Bool = false) async throws -> PackageStore {
        let layers = try await layers(json: json)
        return try reportingErrors(json: json) { try packageStore(layers) }
    }
}
