import Foundation
import Testing

/// A mistyped command or option is answered with what was probably meant, in one line, exit 64.
@Suite struct UsageCorrectionCommandTests {
    @Test func aTruncatedOptionSuggestsTheOptionItBeginsFirst() throws {
        let serve = try PkgctlProcess.run(["serve", "--rout", "localhost/app"])
        #expect(serve.status == 64)
        #expect(serve.stderr == "pkgctl: Unknown option '--rout' for 'pkgctl serve'. Did you mean '--route' or '--root'?\n")
        let pack = try PkgctlProcess.run(["pack", "dist", "--name", "a", "--version", "1", "--out", "out", "--rout", "x/"])
        #expect(pack.status == 64)
        #expect(pack.stderr.hasPrefix("pkgctl: Unknown option '--rout' for 'pkgctl pack'. Did you mean '--route'"), "\(pack.stderr)")
    }

    @Test func aMistypedRequiredOptionIsNamedNotReportedMissing() throws {
        let pack = try PkgctlProcess.run(["pack", "dist", "--name", "a", "--verison", "3.18.5", "--out", "out"])
        #expect(pack.status == 64)
        #expect(pack.stderr == "pkgctl: Unknown option '--verison' for 'pkgctl pack'. Did you mean '--version'?\n",
                "\(pack.stderr)")
        let valued = try PkgctlProcess.run(["pack", "dist", "--name", "a", "--verison=3.18.5", "--out", "out"])
        #expect(valued.stderr.hasPrefix("pkgctl: Unknown option '--verison' for 'pkgctl pack'."), "\(valued.stderr)")
    }

    /// The device's `pkgctl` keeps its own list of the publisher's commands (`PublisherSide`), the
    /// ones it runs `pkgctl-publisher` for and offers when a command is mistyped: it must be the
    /// publisher's binary's own list, and each of them must run there.
    @Test func theDevicesListOfThePublishersCommandsIsThePublishersOwn() throws {
        // The commands an `--experimental-dump-help` lists, but help.
        func commandNames(_ dump: String) throws -> [String] {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any])
            return ((json["command"] as? [String: Any])?["subcommands"] as? [[String: Any]] ?? [])
                .compactMap { $0["commandName"] as? String }.filter { $0 != "help" }
        }
        let publisher = URL(fileURLWithPath: PkgctlProcess.executable).deletingLastPathComponent().path + "/pkgctl-publisher"
        let commands = try commandNames(try PackagingCommand.require(publisher, ["--experimental-dump-help"]))
        let deviceCommands = try commandNames(try PkgctlProcess.run(["--experimental-dump-help"]).stdout)
        let listed = try PkgctlProcess.run(["zzzzzzzz"]).stderr
        let offered = try #require(listed.split(separator: "Commands: ").last).trimmingCharacters(in: .whitespacesAndNewlines)
            .components(separatedBy: ", ")
        #expect(offered == deviceCommands + commands, "\(listed)")
        for command in commands {
            let help = try PkgctlProcess.run(["help", command])
            #expect(help.status == 0 && help.stdout.contains("USAGE: pkgctl \(command) "), "\(command): \(help.stderr)")
        }
    }

    @Test func anOptionNothingResemblesPointsAtHelp() throws {
        let result = try PkgctlProcess.run(["status", "--zzzzzzzz"])
        #expect(result.status == 64)
        #expect(result.stderr == "pkgctl: Unknown option '--zzzzzzzz' for 'pkgctl status' (pkgctl status --help lists its options)\n")
    }

    @Test func anUnknownCommandSuggestsOneAndListsThemAll() throws {
        let result = try PkgctlProcess.run(["upate", "--root", "/tmp/x"])
        #expect(result.status == 64)
        let line = result.stderr
        #expect(line.hasPrefix("pkgctl: unknown command 'upate' for 'pkgctl'. Did you mean 'update'? Commands: update, status, "),
                "\(line)")
        for command in ["publish", "prune", "resolve", "serve", "fleet", "config"] { #expect(line.contains(command)) }
        #expect(!line.contains("help"), "the parser's own help command is not one of pkgctl's")
        #expect(line.split(separator: "\n").count == 1)
    }

    @Test func anUnknownSubcommandIsNamedUnderItsCommand() throws {
        let result = try PkgctlProcess.run(["fleet", "repot", "x.log"])
        #expect(result.status == 64)
        #expect(result.stderr == "pkgctl: unknown command 'repot' for 'pkgctl fleet'. Did you mean 'report'? Commands: report, watch\n")
    }

    @Test func swappedLettersCountAsOneEdit() throws {
        let result = try PkgctlProcess.run(["udpate"])
        #expect(result.stderr.contains("Did you mean 'update'?"), "\(result.stderr)")
    }
}
