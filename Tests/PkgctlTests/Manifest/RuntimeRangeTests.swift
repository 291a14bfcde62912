import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Semver ranges of host runtimes as npm and CodePush write them, and the manifest rules
/// around them: which runtimes a range holds, when two ranges are one release slot, and
/// the one-line refusals of what does not parse.
@Suite struct RuntimeRangeTests {
    @Test(arguments: [
        (">=2.3.0 <3.0.0", ["2.3.0", "2.9.9", "2.10.0"], ["2.2.9", "3.0.0", "1.0.0"]),
        ("2.x", ["2.0.0", "2.99.1", "2"], ["1.9.9", "3.0.0", "3.0.0-beta.1"]),
        ("2", ["2.0.0", "2.5.1"], ["3.0.0", "1.0.0"]),
        ("2.3.*", ["2.3.0", "2.3.9"], ["2.4.0", "2.2.9"]),
        ("~2.4", ["2.4.0", "2.4.17"], ["2.5.0", "2.3.9"]),
        ("~2.4.1", ["2.4.1", "2.4.9"], ["2.4.0", "2.5.0"]),
        ("^3.1.0", ["3.1.0", "3.99.0"], ["3.0.9", "4.0.0", "4.0.0-rc.1"]),
        ("^0.2.3", ["0.2.3", "0.2.9"], ["0.3.0", "0.2.2"]),
        ("^0.0.3", ["0.0.3"], ["0.0.4", "0.0.2"]),
        ("1.2.0 - 1.4", ["1.2.0", "1.4.99"], ["1.1.9", "1.5.0"]),
        ("1.2.0 - 1.4.2", ["1.4.2"], ["1.4.3"]),
        ("2.x || >=3.5.0", ["2.1.0", "3.5.0", "7.0.0"], ["3.0.0", "3.4.9", "1.0.0"]),
        (">= 2.3.0  < 3", ["2.3.0", "2.99.0"], ["3.0.0", "3.0.0-alpha"]),
        (">2.3", ["2.4.0"], ["2.3.9"]),
        ("<=2.3", ["2.3.9"], ["2.4.0"]),
        ("=1.0.0", ["1.0.0", "1.0"], ["1.0.1"]),
        ("*", ["0.0.1", "9.9.9"], []),
        (">=2.0.0-beta.2 <2.0.0", ["2.0.0-beta.2", "2.0.0-beta.10", "2.0.0-rc.1"], ["2.0.0-beta.1", "2.0.0"]),
    ])
    func aRangeHoldsTheRuntimesItNamesAndNoOthers(_ text: String, _ inside: [String], _ outside: [String]) throws {
        let range = try #require(RuntimeRange(text), "\(text): \(RuntimeRange.refusal(text) ?? "")")
        for version in inside {
            #expect(range.contains(try #require(RuntimeVersion(version))), "\(text) holds \(version)")
        }
        for version in outside {
            #expect(!range.contains(try #require(RuntimeVersion(version))), "\(text) does not hold \(version)")
        }
    }

    @Test func rangesMeaningTheSameAreOneSlot() throws {
        let same = [["2.x", "2", ">=2.0.0 <3.0.0-0", "<3.0.0-0   >=2.0.0", "~2", "^2.0.0", "2.*.*"],
                    ["^3.1", ">=3.1.0 <4.0.0-0"], ["1.2.0 - 1.4.2", ">=1.2.0 <=1.4.2"]]
        for group in same {
            let ranges = try group.map { try #require(RuntimeRange($0), "\($0)") }
            #expect(Set(ranges).count == 1, "\(group) are one slot")
        }
        #expect(RuntimeRange("2.x") != RuntimeRange(">=2.0.0 <3.0.0"), "<3.0.0 lets 3.0.0-beta in; 2.x does not")
        #expect(RuntimeRange(">=2.3.0 <3.0.0")?.text == ">=2.3.0 <3.0.0")
        #expect(RuntimeRange(">=  2.3.0   <3.0.0")?.text == ">= 2.3.0 <3.0.0", "whitespace collapsed, kept as written")
    }

    @Test(arguments: [
        ("", "empty"), ("banana", "'banana'"), ("2.x.1", "nothing may follow a wildcard"), ("01.2.3", "not a version"),
        ("1.2.3.4", "not a version"), (">=", "'>=' needs a version"), ("1.2 - ", "'-' must stand between"),
        ("2.x ||", "an alternative of '||' is empty"), ("1.2-beta", "only a full MAJOR.MINOR.PATCH"),
        ("1.2.3-be_ta", "pre-release or build"), ("1234567890.0.0", "not a version"), ("2.x\n", "printable ASCII"),
        (String(repeating: "1.0.0 || ", count: 30) + "1.0.0", "longer than 256"),
    ])
    func whatIsNotARangeIsRefusedSayingWhy(_ text: String, _ reason: String) {
        #expect(RuntimeRange(text) == nil, "\(text)")
        let refusal = RuntimeRange.refusal(text) ?? ""
        #expect(refusal.contains(reason) && !refusal.contains("\n"), "\(text): \(refusal)")
    }

    @Test(arguments: ["3", "3.1", "3.1.0", "3.1.0-beta.2", "3.1.0+build.7", "0.0.0"])
    func runtimeVersionsAreSemverNumbers(_ text: String) {
        #expect(RuntimeVersion(text)?.text == text)
    }

    @Test(arguments: ["", "v3.1.0", "3.1.0.0", "3.01", "3.x", ">=3", "3.1.0-", "3.1 ", "1234567890"])
    func otherRuntimeTextIsRefused(_ text: String) {
        #expect(RuntimeVersion(text) == nil, "\(text)")
    }

    private func manifest(_ entries: [(String, String?)], schema: Int = 3) -> String {
        let packages = entries.map { version, runtime in
            #"{"name":"demo","version":"\#(version)","url":"demo-\#(version).zip","sha256":"\#(String(repeating: "a", count: 64))","size":1"#
                + (runtime.map { #","runtime":"\#($0)""# } ?? "") + "}"
        }
        return #"{"schemaVersion":\#(schema),"packages":[\#(packages.joined(separator: ","))]}"#
    }

    @Test func aManifestListsAPackageOncePerRangeAndNeedsSchema3ForRanges() throws {
        let two = try Manifest.parse(Array(manifest([("3.0.0", ">=3"), ("2.5.0", "2.x")]).utf8), source: "m")
        #expect(two.packages.map(\.runtime) == [">=3", "2.x"])
        #expect(two.requiredSchemaVersion == 3)
        #expect(try Manifest.parse(Array(manifest([("3.0.0", ">=3"), ("1.0.0", nil)]).utf8), source: "m").packages.count == 2,
                "one release for any runtime beside ranged ones")

        func refusal(_ json: String) -> String {
            do { _ = try Manifest.parse(Array(json.utf8), source: "m"); return "" } catch { return "\(error)" }
        }
        #expect(refusal(manifest([("3.0.0", "2.x"), ("2.5.0", ">=2.0.0 <3.0.0-0")]))
                == "manifest m: package 'demo' is listed twice for runtime '>=2.0.0 <3.0.0-0'")
        #expect(refusal(manifest([("3.0.0", nil), ("2.5.0", nil)])) == "manifest m: package 'demo' is listed twice")
        #expect(refusal(manifest([("3.0.0", "banana")]))
                == "manifest m: package 'demo': runtime 'banana' is not a semver range: 'banana' is not a version "
                    + "(MAJOR[.MINOR[.PATCH]], numbers of 1-9 digits without leading zeros, x or * for any)")
        #expect(refusal(manifest([("3.0.0", ">=3")], schema: 2))
                == "manifest m: 'runtime' needs schemaVersion 3, so older clients refuse it")
    }

    @Test func aDeviceGetsTheNewestReleaseItsRuntimeFitsAndAllRevocations() throws {
        var newest = ManifestEntry(name: "demo", version: "3.1.0", url: "a.zip", sha256: String(repeating: "a", count: 64), size: 1)
        newest.runtime = ">=3"
        newest.revoked = ["3.0.9"]
        var maintenance = ManifestEntry(name: "demo", version: "2.5.0", url: "b.zip", sha256: String(repeating: "b", count: 64), size: 1)
        maintenance.runtime = "2.x"
        maintenance.revoked = ["2.4.0"]
        let manifest = Manifest(packages: [newest, maintenance])
        func offer(_ runtime: String?) -> PackageOffer? {
            PackageOffer.offers(in: manifest, runtime: runtime.flatMap(RuntimeVersion.init)).first
        }
        #expect(offer("3.2.0")?.fitting?.version == "3.1.0")
        #expect(offer("2.9.0")?.fitting?.version == "2.5.0")
        #expect(offer("2.9.0")?.fitting?.revoked == ["3.0.9", "2.4.0"], "a version revoked anywhere is revoked")
        #expect(offer("1.0.0")?.fitting == nil && offer("1.0.0")?.newest.version == "3.1.0")
        #expect(offer(nil)?.fitting?.version == "3.1.0", "a device stating no runtime takes the newest, as before")
        #expect(PackageOffer.offers(in: manifest, runtime: nil).count == 1, "one offer per package")
    }
}
