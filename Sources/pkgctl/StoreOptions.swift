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
    /// A config file that cannot be used ends the command with its one-line error.
    func layers(flags: FlagSettings = FlagSettings()) async throws -> ConfigLayers {
        var flags = flags
        flags.set("root", root)
        do {
            return try await ConfigLayers(flags: flags.values, configFile: config)
        } catch let error as ConfigError {
            Output.printError(error.message)
            throw ExitCode(error.status)
        }
    }

    /// The store `layers` name.
    func packageStore(_ layers: ConfigLayers) throws -> PackageStore {
        PackageStore(root: try reportingErrors { try layers.string("root") } ?? StoreLayout.defaultRoot())
    }

    /// The store the flags, environment and config file name.
    func packageStore() async throws -> PackageStore {
        try packageStore(await layers())
    }
}
