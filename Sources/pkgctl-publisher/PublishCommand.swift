import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing

struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Copy what the manifest names into the folder an origin serves: content-named files first, the manifest last.",
        discussion: """
            Copies every file OUT_DIR/manifest.json (and timestamp.json) can make a device fetch into DEST_DIR \
            (nginx's root, a mounted bucket, an rsync staging tree), each under a temporary name until all are \
            flushed, then timestamp.json, then manifest.json, so no device ever reads a manifest whose files are not \
            there yet. A failure at any point leaves the old manifest serving. A file already there with the same \
            bytes is skipped. Holds DEST_DIR's lock: a concurrent publish or prune waits. Prints what it copied \
            and skipped.

            Refused in one line, exit 1, with nothing published: a DEST_DIR manifest signed with a higher \
            sequence (another publisher), a file under a content name with other bytes, a symlink, a manifest \
            URL that leaves the folder, an unsigned manifest over a signed one.

            Examples:
              # Carry what pack wrote to the folder nginx serves:
              pkgctl publish /srv/pkgctl/out /srv/www/app
              # Only say what would be copied:
              pkgctl publish /srv/pkgctl/out /srv/www/app --dry-run
            """)

    @Argument(help: ArgumentHelp("The publishing folder (pack's --out).", valueName: "out-dir"))
    var out: String

    @Argument(help: ArgumentHelp("The folder the origin serves.", valueName: "dest-dir"))
    var destination: String

    @Flag(help: "Only say what would be copied.")
    var dryRun = false

    @Flag(help: "Re-hash the files already in DEST_DIR instead of trusting their content names and sizes.")
    var verify = false

    func run() throws {
        let bar = !dryRun && Output.stderrIsTerminal ? ProgressBar() : nil
        let summary = try reportingErrors {
            defer { bar?.clear() }  // before the summary, or the error, is printed
            return try PublishingFolder(out).publish(to: destination, dryRun: dryRun, verify: verify,
                                                     progress: bar.map { bar in { bar.handle($0) } })
        }
        let sequence = summary.sequence.map { " (sequence \($0))" } ?? ""
        let last = summary.mutableFiles.isEmpty ? "manifest.json\(sequence) already there"
            : summary.mutableFiles.joined(separator: " then ") + sequence + " last"
        let external = summary.external > 0 ? "; \(summary.external) URLs name files elsewhere, not copied" : ""
        print((dryRun ? "would copy " : "copied ") + "\(Self.files(summary.copied)) (\(summary.copiedBytes) bytes), "
              + "skipped \(Self.files(summary.skipped)) already there (\(summary.skippedBytes) bytes); \(last)\(external)")
    }

    private static func files(_ count: Int) -> String { "\(count) file\(count == 1 ? "" : "s")" }
}
