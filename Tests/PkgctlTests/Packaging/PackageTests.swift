import Foundation
import Testing

/// The packages `scripts/package` builds, as Debian's tools and a user's machine see them: files,
/// modes, dependencies, lintian, systemd's units, man pages and completions, an install into a
/// throwaway root, and pkgctl working with the Swift toolchain hidden. pkgctl is the device's
/// package; pkgctl-publisher adds the publisher's commands, which the device's pkgctl runs.
@Suite(.enabled(if: DebianPackage.isAvailable, "needs PKGCTL_DEB, the .deb scripts/package builds (scripts/test)"))
struct PackageTests {
    let deb = DebianPackage.path
    let publisherDeb = DebianPackage.publisherPath

    @Test func theFilesAreWhereDebianExpectsThemOwnedByRootWithTheirModes() throws {
        let entries = try DebianPackage.contents(deb)  // each checked to be owned by root
        var expected = [
            "./usr/bin/pkgctl": "-rwxr-xr-x",
            "./etc/pkgctl/config.json": "-rw-r--r--",
            "./usr/share/bash-completion/completions/pkgctl": "-rw-r--r--",
            "./usr/share/zsh/vendor-completions/_pkgctl": "-rw-r--r--",
            "./usr/share/fish/vendor_completions.d/pkgctl.fish": "-rw-r--r--",
            "./usr/share/doc/pkgctl/copyright": "-rw-r--r--",
            "./usr/share/doc/pkgctl/changelog.gz": "-rw-r--r--",
            "./usr/share/man/man1/pkgctl.1.gz": "-rw-r--r--",
        ]
        for unit in DebianPackage.units { expected[".\(DebianPackage.unitDirectory)/\(unit)"] = "-rw-r--r--" }
        for command in DebianPackage.deviceCommands { expected["./usr/share/man/man1/pkgctl-\(command).1.gz"] = "-rw-r--r--" }
        for command in DebianPackage.publisherCommands { #expect(entries["./usr/share/man/man1/pkgctl-\(command).1.gz"] == nil) }
        for (path, mode) in expected {
            #expect(entries[path]?.mode == mode, "\(path): \(entries[path].map { "\($0)" } ?? "missing")")
        }
        for (path, entry) in entries {
            if path.hasSuffix("/") {
                #expect(entry.mode == "drwxr-xr-x", "\(path): \(entry.mode)")
            } else if path != "./usr/bin/pkgctl" {
                #expect(entry.mode == "-rw-r--r--", "\(path): \(entry.mode)")
            }
        }

        // The publisher's package: its binary where pkgctl looks, its pages, the origin's example.
        let publisher = try DebianPackage.contents(publisherDeb)
        var published = [
            "./\(DebianPackage.publisherBinary)": "-rwxr-xr-x",
            "./usr/share/doc/pkgctl-publisher/copyright": "-rw-r--r--",
            "./usr/share/doc/pkgctl-publisher/examples/origin-nginx.conf": "-rw-r--r--",
        ]
        for command in DebianPackage.publisherCommands { published["./usr/share/man/man1/pkgctl-\(command).1.gz"] = "-rw-r--r--" }
        for (path, mode) in published {
            #expect(publisher[path]?.mode == mode, "\(path): \(publisher[path].map { "\($0)" } ?? "missing")")
        }
        #expect(publisher["./usr/share/man/man1/pkgctl.1.gz"] == nil && publisher["./usr/bin/pkgctl"] == nil,
                "the files of package pkgctl")
    }

    @Test func dependsNamesDebiansLibrariesAndTheConfigIsAConffile() throws {
        let fields = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", deb, "Package", "Architecture", "Depends"])
        #expect(fields.contains("Package: pkgctl\n") && fields.contains("Architecture: amd64\n"), "\(fields)")
        let depends = try #require(fields.split(separator: "\n").first { $0.hasPrefix("Depends: ") })
        // dpkg-shlibdeps gives each library's package with a minimum version.
        for package in ["libcurl4 (>=", "libzip4 (>=", "libc6 (>=", "zlib1g (>=", "libzstd1 (>=", "libstdc++6 (>=", "adduser"] {
            #expect(depends.contains(package), "\(depends)")
        }
        #expect(!depends.lowercased().contains("swift"), "\(depends)")
        // A device carries no image codec: they are the publisher's (pack --image-variants).
        for codec in ["libavif", "libpng", "libjpeg", "libwebp"] { #expect(!depends.contains(codec), "\(depends)") }
        let size = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", deb, "Installed-Size"])
        #expect((Int(size.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max) <= 25 * 1024,
                "the device's package installs \(size) KB")
        let conffiles = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-I", deb, "conffiles"])
        #expect(conffiles == "/etc/pkgctl/config.json\n")
        // The file name carries the binary's own version.
        let unpacked = try DebianPackage.unpack()
        let version = try PackagingCommand.require(unpacked.path("usr/bin/pkgctl"), ["--version"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb.hasSuffix("/pkgctl_\(version)_amd64.deb"), "\(deb) for pkgctl \(version)")
        #expect(try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", deb, "Version"]) == version + "\n")

        // The publisher's package needs this very pkgctl, and the codecs (libavif15 by hand: it is
        // opened on first use, not NEEDED).
        let publisher = try #require(try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", publisherDeb, "Depends"])
            .split(separator: "\n").first)
        for package in ["pkgctl (= \(version))", "libavif15", "libpng16-16 (>=", "libwebp7 (>=", "libcurl4 (>="] {
            #expect(publisher.contains(package), "\(publisher)")
        }
    }

    @Test func theBinariesNeedOnlyDebiansLibrariesAndAreStripped() throws {
        let unpacked = try DebianPackage.unpack([deb, publisherDeb])
        for (binary, allowed) in [("usr/bin/pkgctl", DebianPackage.debianLibraries),
                                  (DebianPackage.publisherBinary, DebianPackage.debianLibraries.union(DebianPackage.imageLibraries))] {
            let (dynamic, needed) = try DebianPackage.dynamicSection(of: unpacked.path(binary))
            #expect(Set(needed).isSubset(of: allowed), "\(binary): \(needed)")
            #expect(needed.contains("libcurl.so.4") && needed.contains("libzip.so.4"), "\(binary): \(needed)")
            #expect(!dynamic.contains("RPATH") && !dynamic.contains("RUNPATH"), "\(binary): \(dynamic)")
            let file = try PackagingCommand.require("/usr/bin/readelf", ["-S", unpacked.path(binary)])
            #expect(!file.contains(".symtab") && !file.contains(".debug_"), "\(binary) is not stripped")
            // Relative relocations packed (DT_RELR, scripts/lib/release-build): a few KB, not 1.4 MB.
            #expect(dynamic.contains("(RELR)") && file.contains(".relr.dyn"), "\(binary): \(dynamic)")
        }
        // Packed relocations need glibc 2.36's loader, which dpkg-shlibdeps does not see (scripts/package).
        for package in [deb, publisherDeb, DebianPackage.sibling("libpkgctl-resolver0")] {
            let depends = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", package, "Depends"])
            #expect(depends.contains("libc6 (>= 2.36)"), "\(package): \(depends)")
        }
    }

    /// The device's package alone: a publisher's command is one line naming the package to
    /// install; with both, `pkgctl pack` runs the publisher's binary.
    @Test func pkgctlRunsThePublishersCommandsOnlyWhenTheirPackageIsThere() throws {
        let alone = try DebianPackage.unpack()
        let refused = try PackagingCommand.run(alone.path("usr/bin/pkgctl"), ["pack", "--help"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "pkgctl: 'pack' is a publisher's command, which comes in the package pkgctl-publisher; "
                + "it is not installed here (apt install pkgctl-publisher)\n", "\(refused.all)")
        let both = try DebianPackage.unpack([deb, publisherDeb])
        let help = try PackagingCommand.run(both.path("usr/bin/pkgctl"), ["pack", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: pkgctl pack "), "\(help.all)")
    }

    @Test func lintianReportsNoErrorOrWarning() throws {
        try DebianPackage.expectLintianClean([deb, publisherDeb])
    }

    @Test func systemdAcceptsTheUnitsAndRatesTheirSandbox() throws {
        let unpacked = try DebianPackage.unpack()
        let unitDirectory = unpacked.path(String(DebianPackage.unitDirectory.dropFirst()))
        let paths = DebianPackage.units.map { unitDirectory + "/" + $0 }
        // With --root, ExecStart=/usr/bin/pkgctl is looked for there, and so are the
        // units they name (sysinit.target, timers.target, ...): the system's are copied in.
        try PackagingCommand.require("/bin/cp", ["-R", "-n", "/usr/lib/systemd/system/.", unitDirectory])
        // Documentation=man:pkgctl-update(1) etc. must name the packaged pages.
        let verify = try PackagingCommand.run("/usr/bin/systemd-analyze", ["verify", "--root=\(unpacked.path)"] + paths,
                                              environment: ["SYSTEMD_LOG_LEVEL": "notice",
                                                            "MANPATH": unpacked.path("usr/share/man")])
        #expect(verify.status == 0 && verify.all.isEmpty, "\(verify.all)")
        for service in DebianPackage.units where service.hasSuffix(".service") {
            let security = try PackagingCommand.run(
                "/usr/bin/systemd-analyze",
                ["security", "--offline=yes", "--root=\(unpacked.path)", "--no-pager", "--threshold=25",
                 unpacked.path("usr/lib/systemd/system/\(service)")])
            #expect(security.status == 0, "\(service): \(security.all)")
            // "→ Overall exposure level for pkgctl-serve.service: 1.6 OK 🙂"
            let overall = try #require(security.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") },
                                       "\(security.all)")
            let level = overall.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
            #expect((level ?? 10) <= 2.5, "\(overall)")
        }
    }

    @Test func theUnitsRunPkgctlAsItsOwnUserInsideTheStateDirectory() throws {
        let unpacked = try DebianPackage.unpack()
        func unit(_ name: String) throws -> [String] {
            try String(contentsOfFile: unpacked.path("usr/lib/systemd/system/\(name)"), encoding: .utf8)
                .split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        }
        let update = try unit("pkgctl-update.service"), serve = try unit("pkgctl-serve.service")
        let timer = try unit("pkgctl-update.timer")
        #expect(update.contains("Type=oneshot") && update.contains("ExecStart=/usr/bin/pkgctl update"))
        #expect(update.contains("SuccessExitStatus=75"))
        #expect(serve.contains("ExecStart=/usr/bin/pkgctl serve"))
        for lines in [update, serve] {
            for setting in ["User=pkgctl", "StateDirectory=pkgctl", "ProtectSystem=strict", "ProtectHome=yes",
                            "NoNewPrivileges=yes", "PrivateTmp=yes", "PrivateDevices=yes", "CapabilityBoundingSet=",
                            "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "SystemCallFilter=@system-service"] {
                #expect(lines.contains(setting), "\(setting) missing")
            }
        }
        #expect(timer.contains { $0.hasPrefix("RandomizedDelaySec=") } && timer.contains("WantedBy=timers.target"))
        // The default configuration: the store is the state directory; serve stays on loopback.
        let config = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: unpacked.path("etc/pkgctl/config.json")))) as? [String: Any])
        #expect(config["root"] as? String == "/var/lib/pkgctl")
        let serveConfig = try #require(config["serve"] as? [String: Any])
        #expect(serveConfig["bind"] as? String == "127.0.0.1" && serveConfig["port"] as? Int == 8080)
        #expect(config["update"] is [String: Any])
    }

    @Test func completionsAndManPagesComeFromTheCommandLineDefinition() throws {
        let unpacked = try DebianPackage.unpack()
        let bash = unpacked.path("usr/share/bash-completion/completions/pkgctl")
        let completes = try PackagingCommand.require("/bin/bash", ["-c", "source \"$0\" && complete -p pkgctl", bash])
        #expect(completes.contains("pkgctl"), "\(completes)")
        let zsh = try String(contentsOfFile: unpacked.path("usr/share/zsh/vendor-completions/_pkgctl"), encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef pkgctl"))
        let fish = try String(contentsOfFile: unpacked.path("usr/share/fish/vendor_completions.d/pkgctl.fish"), encoding: .utf8)
        #expect(fish.contains("complete -c 'pkgctl'"))
        // Each page holds its command's options and its discussion text.
        let page = try PackagingCommand.require("/bin/sh", ["-c", "gzip -dc \"$0\"", unpacked.path("usr/share/man/man1/pkgctl-update.1.gz")])
        #expect(page.hasPrefix(".\\\"") || page.contains(".Dt PKGCTL-UPDATE 1"), "\(page.prefix(200))")
        #expect(page.contains("trusted-key") && page.contains("manifest"))
        #expect(page.contains("A failed package keeps its active version"), "the discussion is missing")
        let serve = try PackagingCommand.require("/bin/sh", ["-c", "gzip -dc \"$0\"", unpacked.path("usr/share/man/man1/pkgctl-serve.1.gz")])
        #expect(serve.contains("metrics-port"))
    }

    /// A real `dpkg --root` install into an empty root (DebianPackage.throwawayRoot), then a purge.
    @Test(.enabled(if: getuid() == 0, "dpkg --root needs root"))
    func installsIntoAThrowawayRootAndPurgesFromIt() throws {
        let (root, dpkg) = try DebianPackage.throwawayRoot(for: [deb, publisherDeb])
        let userBefore = try PackagingCommand.run("/usr/bin/getent", ["passwd", "pkgctl"]).status
        let install = try PackagingCommand.run("/usr/bin/dpkg", dpkg + ["--install", deb, publisherDeb])
        #expect(install.status == 0 && !install.all.contains("warning"), "\(install.all)")
        let status = try PackagingCommand.require("/usr/bin/dpkg-query", ["--root=\(root.path)", "-W", "-f=${Status} ${Version}", "pkgctl"])
        #expect(status.hasPrefix("install ok installed "), "\(status)")
        let version = try PackagingCommand.require(root.path("usr/bin/pkgctl"), ["--version"])
        #expect(status.hasSuffix(" " + version.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(FileManager.default.fileExists(atPath: root.path("etc/pkgctl/config.json")))
        #expect(try PackagingCommand.run("/usr/bin/getent", ["passwd", "pkgctl"]).status == userBefore,
                "postinst made the pkgctl user on this system, not in the root")

        let publisherWorks = try PackagingCommand.run(root.path("usr/bin/pkgctl"), ["help", "pack"])
        #expect(publisherWorks.status == 0 && publisherWorks.stdout.contains("USAGE: pkgctl pack "), "\(publisherWorks.all)")
        let purge = try PackagingCommand.run("/usr/bin/dpkg", dpkg + ["--purge", "pkgctl-publisher", "pkgctl"])
        #expect(purge.status == 0 && !purge.all.contains("warning"), "\(purge.all)")
        for gone in ["usr/bin/pkgctl", DebianPackage.publisherBinary, "etc/pkgctl/config.json",
                     "usr/lib/systemd/system/pkgctl-update.timer"] {
            #expect(!FileManager.default.fileExists(atPath: root.path(gone)), "\(gone) left after purge")
        }
        let after = try PackagingCommand.run("/usr/bin/dpkg-query", ["--root=\(root.path)", "-W", "pkgctl"])
        #expect(after.status != 0 || after.stdout.isEmpty, "\(after.all)")
    }

    /// A real `dpkg -i` on this system as seen through a copy-on-write overlay (a
    /// mount namespace of its own, chrooted; nothing reaches the real root): postinst
    /// makes the pkgctl user and /var/lib/pkgctl, that user installs the sample
    /// bundle with the packaged pkgctl, `dpkg -r` keeps the configuration and the
    /// store, `dpkg --purge` removes both.
    @Test(.enabled(if: getuid() == 0, "mounting an overlay needs root"))
    func installsPurgesAndRunsAsItsUserOnACopyOfThisSystem() throws {
        let overlay = try TemporaryDirectory(prefix: "pkgctl-overlay")
        for folder in ["upper", "work", "merged", "origin"] { try overlay.makeDirectory(folder) }
        let unpacked = try DebianPackage.unpack([deb, publisherDeb])
        try PackagingCommand.require(unpacked.path("usr/bin/pkgctl"), [
            "pack", BundleFixtures.demoSource("1.0.0"), "--name", "demo", "--version", "1.0.0",
            "--out", overlay.path("origin"), "--route", "www.example.com/app"])
        let inside = #"""
            set -e
            dpkg -i /tmp/pkgctl.deb >/dev/null
            getent passwd pkgctl | cut -d: -f1,6,7
            stat -c 'state %U:%G %a' /var/lib/pkgctl
            su -s /bin/sh pkgctl -c 'pkgctl update --root /var/lib/pkgctl --manifest file:///tmp/origin/manifest.json'
            stat -c 'store %U' /var/lib/pkgctl/packages
            dpkg -r pkgctl >/dev/null
            test -f /etc/pkgctl/config.json && echo "removed: config kept"
            test -d /var/lib/pkgctl/packages && echo "removed: store kept"
            dpkg --purge pkgctl >/dev/null
            test ! -e /etc/pkgctl && test ! -e /var/lib/pkgctl && echo "purged: config and store gone"
            """#
        let outside = #"""
            set -e
            mount -t overlay overlay -o "lowerdir=/,upperdir=$OVERLAY/upper,workdir=$OVERLAY/work" "$OVERLAY/merged"
            mount -t proc proc "$OVERLAY/merged/proc"
            mount --rbind /dev "$OVERLAY/merged/dev"
            mount -t tmpfs tmpfs "$OVERLAY/merged/tmp"
            mount -t tmpfs tmpfs "$OVERLAY/merged/run"
            cp "$DEB" "$OVERLAY/merged/tmp/pkgctl.deb"
            cp -R "$OVERLAY/origin" "$OVERLAY/merged/tmp/origin"
            chmod -R a+rX "$OVERLAY/merged/tmp/origin"
            exec chroot "$OVERLAY/merged" /bin/sh -c "$INSIDE"
            """#
        let result = try PackagingCommand.run("/usr/bin/unshare", ["--mount", "/bin/sh", "-c", outside],
                                              environment: ["OVERLAY": overlay.path, "DEB": deb, "INSIDE": inside])
        #expect(result.status == 0, "\(result.all)")
        for line in ["pkgctl:/var/lib/pkgctl:/usr/sbin/nologin", "state pkgctl:pkgctl 755", "demo: installed 1.0.0",
                     "store pkgctl", "removed: config kept", "removed: store kept", "purged: config and store gone"] {
            #expect(result.stdout.contains(line + "\n"), "\(line) missing: \(result.all)")
        }
    }

    /// The packaged binary with the Swift toolchain hidden (an empty tmpfs over it in
    /// a mount namespace of its own): it signs and packs the sample bundle, installs
    /// it with a verified update, and serves it to curl.
    @Test func withTheToolchainHiddenItPacksUpdatesAndServes() throws {
        let unpacked = try DebianPackage.unpack([deb, publisherDeb])
        let work = try TemporaryDirectory(prefix: "pkgctl-deb-run")
        let toolchain = try DebianPackage.toolchainRoot()
        let script = #"""
            set -e
            mount -t tmpfs none "$TOOLCHAIN"
            if [ -e "$TOOLCHAIN/usr/lib/swift/linux/libswiftCore.so" ]; then echo "toolchain still visible"; exit 1; fi
            pkgctl="$UNPACKED/usr/bin/pkgctl"
            "$pkgctl" --version
            "$pkgctl" keygen --out "$WORK/keys"
            "$pkgctl" pack "$SAMPLE" --name demo --version 1.0.0 --out "$WORK/origin" --route www.example.com/app \
              --sign "$WORK/keys/release.key"
            "$pkgctl" update --root "$WORK/store" --manifest "file://$WORK/origin/manifest.json" \
              --trusted-key "$WORK/keys/release.pub"
            "$pkgctl" serve --root "$WORK/store" --port 0 --offline >"$WORK/serve.out" 2>"$WORK/serve.err" &
            serve=$!
            i=0
            until grep -q '^serving' "$WORK/serve.out" 2>/dev/null; do
              i=$((i + 1)); if [ $i -gt 300 ]; then echo "no banner"; cat "$WORK/serve.err"; kill $serve; exit 1; fi
              sleep 0.1
            done
            url=$(sed -n 's/^serving .* on \(http:[^ ]*\).*/\1/p' "$WORK/serve.out")
            curl -fsS --max-time 20 "$url" || { kill $serve; exit 1; }
            kill -TERM $serve
            wait $serve && echo "serve exited 0"
            """#
        let unshare = getuid() == 0 ? ["--mount"] : ["--map-root-user", "--mount"]
        let result = try PackagingCommand.run(
            "/usr/bin/unshare", unshare + ["/bin/sh", "-c", script],
            environment: ["TOOLCHAIN": toolchain, "UNPACKED": unpacked.path, "WORK": work.path,
                          "SAMPLE": BundleFixtures.demoSource("1.0.0")])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("demo: installed 1.0.0"), "\(result.all)")
        #expect(result.stdout.contains("<h1>Demo 1.0</h1>"), "\(result.all)")
        #expect(result.stdout.contains("serve exited 0"), "\(result.all)")
    }
}
