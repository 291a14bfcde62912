import Foundation

/// What the command-line suites publish into and update from: a temporary folder whose
/// `out/` is `pkgctl pack`'s output folder, served by nginx with its access log on.
struct PublishingOrigin {
    let temp: TemporaryDirectory
    /// The publishing folder, nginx's root.
    let out: String
    let origin: NginxOrigin
    /// `manifest.json` as devices fetch it.
    var manifestURL: String { origin.baseURL + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        out = try temp.makeDirectory("out")
        origin = try NginxOrigin(root: out, accessLog: true)
    }
}
