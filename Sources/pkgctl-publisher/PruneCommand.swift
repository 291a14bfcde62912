import PkgCommandLine
import ArgumentParser
import FoundationEssentials
import PkgCore
import PkgPublishing

struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove the files old releases left in a publishing folder that no device can still be sent for.",
        discussion: """
            Works on pack's OUT_DIR or on a folder publish copied to. Keeps what the current manifest names \
            (whatever the options), what every manifest that was current within the grace period names, and the \
            zip, index, objects and deltas of each package's N newest versions; removes the rest of zips/, index/, \
            deltas/, objects/, manifests/ and snapshots/. Prints each file it removes and the bytes freed.

            Only content-named files and .tmp- leftovers are ever removed; a site's own files stay. Until the \
            archived manifests reach back past the grace period, nothing is removed, and it says so. Holds \
            the folder's lock, so pack and publish wait for it.

            Examples:
              # List what would go from the folder the origin serves:
              pkgctl prune /srv/www/app --dry-run
              # Keep five versions of each package, and what manifests named for a week:
              pkgctl prune /srv/pkgctl/out --keep 5 --grace 7d
            """)

    @Argument(help: ArgumentHelp("The publishing folder.", valueName: "dir"))
    var directory: String

    @Option(help: "Each package's newest versions whose files stay.")
    var keep = OriginPruner.defaultKeep

    @Option(help: ArgumentHelp("How long files a superseded manifest names stay (SECONDS, or 30m, 25h, 2d).",
                               valueName: "duration"))
    var grace = "25h"

    @Flag(help: "Only list what would be removed.")
    var dryRun = false

    func validate() throws {
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
        guard DurationText.parse(grace) != nil else {
            throw ValidationError("--grace must be a duration: SECONDS, or a number with s, m, h or d")
        }
    }

    func run() throws {
        let seconds = DurationText.parse(grace)!  // validate() parsed it
        let summary = try reportingErrors {
            try PublishingFolder(directory).prune(keep: keep, grace: seconds, dryRun: dryRun)
        }
        for path in summary.removed { print((dryRun ? "would remove " : "removed ") + path) }
        let what = summary.removed.isEmpty ? "nothing to remove"
            : (dryRun ? "would remove" : "removed") + " \(summary.removed.count) files, \(summary.removedBytes) bytes"
        if let start = summary.historyStarts {
            print("the archived manifests (\(directory)/manifests/) start \(InternetDate.format(start)), within the grace "
                  + "period: the manifests before them are not known, so nothing is removed before \(grace) after that")
        }
        let manifests = "\(summary.manifests) manifest\(summary.manifests == 1 ? "" : "s")"
        print("\(what); kept \(summary.kept) files (\(summary.keptBytes) bytes): named by \(manifests) current within "
              + "\(DurationText.format(seconds: seconds)) or by each package's \(keep) newest versions, or younger than that")
    }
}
