import PkgCommandLine
import ArgumentParser
import PkgCore

/// `pkgctl config`: every setting of `update` and `serve`, its effective value and
/// where that came from.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the effective settings of update and serve and where each comes from.",
        discussion: """
            Each setting comes from, highest first: the command's flag, the environment \
            (PKGCTL_ and the key in upper case with _ for . and -, e.g. PKGCTL_UPDATE_TRUSTED_KEY), \
            the config file (a JSON object: {"root": DIR, "update": {KEY: VALUE}, "serve": {KEY: VALUE}}, \
            KEY being the long flag's name; a list for trusted-key), else the default. The config file is \
            --config FILE, else $PKGCTL_CONFIG, else /etc/pkgctl/config.json when it exists. \
            Exits 78 when the file or a PKGCTL_* setting cannot be used, naming the file or variable and the key.

            Prints the config file in use, then one line per setting: its key, its effective value and \
            where that came from (a file, a variable, or default).

            Examples:
              # What update and serve would run with on this machine:
              pkgctl config
              # Check a new config file before installing it:
              pkgctl config --config ./config.json
              # See an environment variable win over the file:
              PKGCTL_UPDATE_KEEP=5 pkgctl config
            """)

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let layers = try await store.layers()
        print("config file: \(layers.file ?? "none (\(ConfigLayers.defaultFile) does not exist)")")
        let lines = try reportingErrors {
            try Setting.all.map { setting in
                let value = try Self.value(of: setting, in: layers)
                let shown = value ?? setting.defaultText ?? "(not set)"
                return (setting.key, shown, value == nil ? "default" : layers.source(of: setting.key) ?? "default")
            }
        }
        let keyWidth = lines.map(\.0.count).max() ?? 0
        for (key, value, source) in lines {
            print(key.padding(to: keyWidth) + "  " + value + "  (" + source + ")")
        }
    }

    /// The setting's value as text, from the highest layer that sets it; nil when none does.
    private static func value(of setting: Setting, in layers: ConfigLayers) throws -> String? {
        switch setting.kind {
        case .string: try layers.string(setting.key)
        case .integer: try layers.integer(setting.key).map { "\($0)" }
        case .number: try layers.number(setting.key).map { "\($0)" }
        case .boolean: try layers.boolean(setting.key).map { "\($0)" }
        case .strings: try layers.strings(setting.key).map { "[" + $0.joined(separator: ", ") + "]" }
        }
    }
}

private extension String {
    func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
