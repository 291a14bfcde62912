import ArgumentParser

struct RootCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "root",
        abstract: "Make, sign and publish roots of trust: which keys sign manifests and timestamps.",
        discussion: """
            A root lists the keys of three roles (root, content, timestamp) and how many of each must \
            sign. Devices start from one (update --trusted-root) and follow newer ones the origin \
            publishes in roots/, each signed by the root keys of the one before and of its own, so \
            content and timestamp keys rotate with no change on a device. Root keys stay offline; \
            each signs on its own machine (root sign). See docs/SIGNING.md.

            Examples:
              # The first root, signed by the root key and added to the publishing folder:
              pkgctl root init root-1.json --root-key root.pub --content-key release.pub --timestamp-key online.pub
              pkgctl root sign root-1.json --key root.key
              pkgctl root add root-1.json out
              # A new content key, with no change on any device:
              pkgctl root rotate out/roots/1.json --out root-2.json --content-key new.pub
            """,
        subcommands: [RootInitCommand.self, RootRotateCommand.self, RootSignCommand.self, RootAddCommand.self,
                      RootShowCommand.self])
}
