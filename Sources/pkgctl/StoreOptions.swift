import PkgCommandLine
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

    @Flag(name: .long, help: ArgumentHelp(
        "Write the store even though it belongs to another user and this runs as root.",
        discussion: "Without it, root is refused a store owned by another user (the service's), where the files "
            + "it wrote would later make that user's updates fail with Permission denied."))
    var forceOwner = false

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

    /// The store `layers` name; a root setting that cannot be used, or (for a command that
    /// `writes`) a store root may not write (``StoreRoot/checkOwner(force:)``), throws its
    /// `ConfigError`. Errors printed later that name the store say where its path came from.
    func packageStore(_ layers: ConfigLayers, writes: Bool = true) throws -> PackageStore {
        let path = try layers.string("root")
        let root = StoreRoot(path: path ?? StoreLayout.defaultRoot(), source: path == nil ? nil : layers.source(of: "root"))
        StoreRoot.record(root)
        if writes { try root.checkOwner(force: forceOwner) }
        return PackageStore(root: root.path)
    }

    /// The store the flags, environment and config file name; a bad setting ends the
    /// command with its one-line error (and, with `json`, as JSON on stdout).
    func packageStore(json: Bool = false, writes: Bool = true) async throws -> PackageStore {
        let layers = try await layers(json: json)
        return try reportingErrors(json: json) { try packageStore(layers, writes: writes) }
    }
}
