/// One file going into a bundle: its name in the zip, and where its bytes are read from.
public struct BundleFile: Sendable, Hashable {
    /// The entry's name: a relative path with `/` separators.
    public var name: String
    /// The file to read.
    public var path: String

    /// A file named `name` in the bundle, read from `path`.
    public init(name: String, path: String) {
        self.name = name
        self.path = path
    }
}
