import ArgumentParser
import PkgCore

/// `--root`, shared by every command that works on a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Store directory.",
        discussion: "Default: $PKGCTL_ROOT, else $XDG_DATA_HOME/pkgctl, else ~/.local/share/pkgctl.",
        valueName: "dir"))
    var root: String = StoreLayout.defaultRoot()

    var store: PackageStore { PackageStore(root: root) }
}
