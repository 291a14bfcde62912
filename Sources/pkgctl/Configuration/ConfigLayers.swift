import PkgCommandLine
import Configuration
import FoundationEssentials
import Glibc

/// Where the settings of `update` and `serve` come from, read through
/// swift-configuration. Highest first: the command's flags, the environment
/// (`PKGCTL_UPDATE_KEEP`), the config file; a key none of them sets takes the
/// command's default.
///
/// The config file is `--config FILE`, else `$PKGCTL_CONFIG`, else
/// `/etc/pkgctl/config.json` when it exists.
struct ConfigLayers {
    /// The config file read when neither `--config` nor `$PKGCTL_CONFIG` names one.
    static let defaultFile = "/etc/pkgctl/config.json"

    /// The config file in use; nil when there is none.
    let file: String?
    /// What each of the reader's providers is, in its order.
    private let layers: [Layer]
    private let reader: ConfigReader
    private let recorder: SourceRecorder

    /// The layers for a command given `flags` (the settings its command line set)
    /// and `--config`'s value. Throws a ``ConfigError`` for a config file that is
    /// missing (when named), unreadable, not JSON, or holds a key that is not a setting.
    init(flags: [String: ConfigContent], configFile: String?,
         environment: [String: String] = ProcessInfo.processInfo.environment) async throws {
        let named = configFile ?? environment["PKGCTL_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path = named ?? (access(Self.defaultFile, F_OK) == 0 ? Self.defaultFile : nil)
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: flags.map { key, content in
                (AbsoluteConfigKey(ConfigKey(key)), ConfigValue(content, isSecret: false))
            })),
        ]
        var layers: [Layer] = [.flags]
        // An empty variable counts as unset, as shells and systemd's Environment= often leave them.
        // Without any PKGCTL_ variable the layer is left out: it would answer nothing, and its
        // lookups were 1.8 M of a no-change update's 57 M instructions.
        let variables = environment.filter { !$0.value.isEmpty }
        if variables.keys.contains(where: { $0.hasPrefix("PKGCTL_") }) {
            providers.append(EnvironmentVariablesProvider(environmentVariables: variables).prefixKeys(with: "pkgctl"))
            layers.append(.environment)
        }
        if let path {
            var info = stat()
            guard access(path, R_OK) == 0, stat(path, &info) == 0 else {
                throw ConfigError("config file \(path): cannot be read (\(String(cString: strerror(errno))))")
            }
            guard info.st_mode & S_IFMT == S_IFREG else { throw ConfigError("config file \(path): not a regular file") }
            guard let bytes = try? Array(Data(contentsOf: URL(filePath: path))) else {
                throw ConfigError("config file \(path): cannot be read")
            }
            providers.append(InMemoryProvider(name: path, values: try ConfigFile.values(bytes, path: path)))
            layers.append(.file)
        }
        file = path
        self.layers = layers
        recorder = SourceRecorder()
        reader = ConfigReader(providers: providers, accessReporter: recorder)
    }

    func string(_ key: String) throws -> String? { try read(key) { reader.string(forKey: ConfigKey(key)) } }

    func integer(_ key: String) throws -> Int? { try read(key) { reader.int(forKey: ConfigKey(key)) } }

    func number(_ key: String) throws -> Double? { try read(key) { reader.double(forKey: ConfigKey(key)) } }

    func boolean(_ key: String) throws -> Bool? { try read(key) { reader.bool(forKey: ConfigKey(key)) } }

    func strings(_ key: String) throws -> [String]? { try read(key) { reader.stringArray(forKey: ConfigKey(key)) } }

    /// Where the value of `key` came from, after it was read: `--keep`,
    /// `PKGCTL_UPDATE_KEEP`, the file's path, or nil (the default).
    func source(of key: String) -> String? {
        recorder.finding(for: key).map { layerName($0.layer, key: key) }
    }

    /// A setting's value that the command cannot use (out of range): the error names its source.
    func invalid(_ key: String, _ problem: String) -> ConfigError {
        guard let layer = recorder.finding(for: key)?.layer else { return ConfigError("\(key) \(problem)") }
        if layers[layer] == .flags { return ConfigError("\(Setting.named(key).flag) \(problem)", status: ExitStatus.usage) }
        return ConfigError("\(layerName(layer, key: key)): \(key) \(problem)")
    }

    private func read<Value>(_ key: String, _ lookup: () -> Value?) throws -> Value? {
        let value = lookup()
        if case .failure(let layer) = recorder.finding(for: key) {
            throw ConfigError("\(layerName(layer, key: key)): \(key): expected \(Setting.named(key).kind.name)")
        }
        return value
    }

    private enum Layer { case flags, environment, file }

    private func layerName(_ layer: Int, key: String) -> String {
        switch layers[layer] {
        case .flags: Setting.named(key).flag
        case .environment: Setting.named(key).environmentVariable
        case .file: file ?? "config file"
        }
    }
}
