import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Each publishing command killed at random instants, as the device side's store is: SIGKILL
/// (and every fourth trial SIGINT) at random instants that search the span of its uninterrupted run for its writes.
/// After every kill the folder must be whole (``PublishingFolderCheck/expectWhole(_:keys:sequences:)``:
/// the manifest old or new, verifiable, naming only files that are there), the same command must
/// then succeed, no version may be blocked that no manifest named, and that run must leave no
/// temporary file of the killed one. Each test prints how many kills landed mid-operation (the
/// process died by the signal with the folder already changed or a temporary file written).
/// The killed runs are the uninstrumented build's (``UninstrumentedBuild``), whose writes take
/// the product's time; the runs after them, this build's.
@Suite struct InterruptionTrialTests {
    /// The pkgctl killed.
    static let killed = UninstrumentedBuild.pkgctlOrThisBuild

    /// Trials per command: fewer for an instrumented pkgctl, whose every run is several times
    /// slower. A command that writes much gets as many again while no kill has landed mid-operation.
    static let trials = UninstrumentedBuild.pkgctl == nil ? 6 : 24

    /// A command under trial: the folder a trial copies, and its arguments given that copy.
    struct Command: CustomTestStringConvertible, Sendable {
        let name: String
        /// Whether it writes many files for long (pack, publish, promote), so kills land mid-operation.
        var writesMuch: Bool { ["pack", "publish", "promote"].contains(name) }
        let start: @Sendable (InterruptionTrialFolders) -> String
        let arguments: @Sendable (InterruptionTrialFolders, String) -> [String]
        var testDescription: String { name }
    }

    static let commands: [Command] = [
        Command(name: "pack", start: \.one) { folders, out in folders.packArguments(folders.source("A"), "2.0.0", into: out) },
        Command(name: "publish", start: \.origin) { folders, destination in ["publish", folders.staging, destination] },
        Command(name: "prune", start: \.three) { _, out in ["prune", out, "--keep", "1", "--grace", "0"] },
        Command(name: "promote", start: \.one) { folders, out in
            ["promote", folders.staging, out, "demo", "2.0.0", "--sign", folders.keys + "/release.key"]
        },
        Command(name: "rollout", start: \.rollingOut) { folders, out in
            ["rollout", out, "demo", "50", "--sign", folders.keys + "/release.key"]
        },
        Command(name: "revoke", start: \.rollingOut) { folders, out in
            ["revoke", out, "demo", "2.0.0", "--sign", folders.keys + "/release.key"]
        },
        Command(name: "timestamp", start: \.three) { folders, out in ["timestamp", out, "--key", folders.keys + "/online.key"] },
        Command(name: "sign", start: \.three) { folders, out in
            ["sign", out + "/manifest.json", "--key", folders.keys + "/release.key"]
        },
    ]

    @Test(arguments: commands)
    func aKillAtAnyInstantLeavesTheFolderWholeAndTheCommandRepeatable(_ command: Command) throws {
        let folders = try InterruptionTrialFolders()
        let start = command.start(folders)
        let sequence = try PublishingFolderCheck.expectWhole(start, keys: folders.keys, sequences: 0...UInt64.max)
        let duration = try uninterruptedDuration(command, from: start, folders: folders)
        var generator = SplitMix(seed: UInt64(command.name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
        // Most of a short command's run is the process starting, and its writes are a few
        // milliseconds at the end. The kills search for them: each falls at random between the
        // latest instant known to be before any write (`early`) and the earliest known to be after
        // the end (`late`: the command had succeeded), which start at 30 % and 120 % of the
        // uninterrupted run. Since one run on a loaded machine is not the next, the bounds widen by
        // 5 % a trial and never cross.
        var killed = 0, midOperation = 0, trials = 0
        var early = 0.3 * duration, late = 1.2 * duration
        for trial in 0..<(2 * Self.trials) {
            if trial >= Self.trials, midOperation > 0 || !command.writesMuch { break }
            trials += 1
            let folder = folders.temp.path("trial-\(trial)")
            try FileManager.default.copyItem(atPath: start, toPath: folder)
            let before = PublishingFolderCheck.listing(of: folder)
            let delay = early + Double(generator.next() % 1_000) / 1_000 * (late - early)
            let signal = trial % 4 == 3 ? SIGINT : SIGKILL
            let (process, _, _) = try PkgctlProcess.start(command.arguments(folders, folder), executable: Self.killed)
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let label = "\(command.name) trial \(trial), signal \(signal) after \(Int(delay * 1000)) ms"
            if process.terminationReason == .uncaughtSignal {
                killed += 1
                if !PublishingFolderCheck.temporaries(in: folder).isEmpty || PublishingFolderCheck.listing(of: folder) != before {
                    midOperation += 1
                } else {
                    early = delay
                }
            } else if process.terminationStatus == 0 {
                late = delay
            }
            early *= 0.95
            late = max(late * 1.05, early * 1.1)
            #expect(throws: Never.self, "\(label): the folder is whole") {
                try PublishingFolderCheck.expectWhole(folder, keys: folders.keys, sequences: sequence...sequence + 1)
            }
            try rerun(command, in: folder, folders: folders, trial: trial, label: label)
            #expect(PublishingFolderCheck.temporaries(in: folder).isEmpty, "\(label): the next run removed what the kill left")
            #expect(throws: Never.self, "\(label): whole after the next run") {
                try PublishingFolderCheck.expectWhole(folder, keys: folders.keys, sequences: sequence...sequence + 2)
            }
            try FileManager.default.removeItem(atPath: folder)
        }
        print("interruption trials: \(command.name): \(trials) trials over \(Int(duration * 1000)) ms runs, "
              + "\(killed) killed, \(midOperation) mid-operation")
        #expect(killed > 0, "no kill landed before the command ended: the trials proved nothing")
        // The other commands' work (prune's unlinks too) is a few milliseconds at the end of a
        // process start-up: a kill lands in it only sometimes, and on a loaded machine maybe in no trial.
        #expect(midOperation > 0 || !command.writesMuch || UninstrumentedBuild.pkgctl == nil,
                "no kill landed mid-operation: the trials proved nothing")
    }

    /// The command's own uninterrupted run, which sets the range of the kills: the shorter of two,
    /// since one run on a loaded machine can take twice as long (a TSan run once timed `sign` at
    /// 548 ms, and six kills from 30 % of that all came after it ended).
    private func uninterruptedDuration(_ command: Command, from start: String,
                                       folders: InterruptionTrialFolders) throws -> TimeInterval {
        var duration = TimeInterval.infinity
        for run in 0..<2 {
            let timed = folders.temp.path("timed-\(run)")
            try FileManager.default.copyItem(atPath: start, toPath: timed)
            let began = Date()
            try InterruptionTrialFolders.run(command.arguments(folders, timed), executable: Self.killed)
            duration = min(duration, Date().timeIntervalSince(began))
        }
        return duration
    }

    /// Runs the command again on the interrupted folder, which must succeed. For `pack`, every other
    /// trial whose kill left 2.0.0 unnamed by any manifest packs other bytes as 2.0.0 instead: a zip
    /// the killed run left must not block the version.
    private func rerun(_ command: Command, in folder: String, folders: InterruptionTrialFolders, trial: Int,
                       label: String) throws {
        var arguments = command.arguments(folders, folder)
        if command.name == "pack", trial % 2 == 1, !(try namesVersion("2.0.0", in: folder)) {
            arguments = folders.packArguments(folders.source("B"), "2.0.0", into: folder)
        }
        let again = try PkgctlProcess.run(arguments)
        #expect(again.status == 0, "\(label): the same command again: \(again.stderr)")
    }

    /// Whether the manifest, or one archived in `manifests/`, names `version` of demo.
    private func namesVersion(_ version: String, in folder: String) throws -> Bool {
        let archives = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/manifests")) ?? []
        return try ([folder + "/manifest.json"] + archives.map { folder + "/manifests/" + $0 }).contains { path in
            try PublishedManifest.read(path)?.manifest.packages.contains { $0.version == version } == true
        }
    }
}
