// Placeholder so the package builds until the CLI lands; delete it then.
@main
enum PkgctlPlaceholder {
    static func main() {}
}
