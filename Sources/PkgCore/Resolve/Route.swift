/// One route of a package: a host and a path prefix (`""` or `/app`, no trailing slash).
struct Route: Sendable {
    let host: String
    let prefix: String
    let mount: PackageMount
}
