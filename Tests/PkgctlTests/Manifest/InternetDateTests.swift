import Foundation
import Testing
@testable import PkgCore

/// The dates of manifests, timestamps, roots and state files, read and written by
/// `InternetDate` instead of Foundation's ISO 8601 style: what pkgctl and other tools
/// write reads as the same second Foundation's `.iso8601` reads, what pkgctl writes is
/// byte for byte what `.iso8601` wrote, and a date that is not a real one is refused where
/// Foundation moved it to another day.
@Suite struct InternetDateTests {
    /// The date Foundation's `.iso8601` strategy reads from `text`.
    func foundationReads(_ text: String) -> Date? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode([Date].self, from: Data("[\"\(text)\"]".utf8)).first
    }

    @Test(arguments: ["2026-11-29T23:00:00Z", "2026-11-29T23:00:00+01:00", "2026-11-29T23:00:00+0100",
                      "2026-11-29T23:00:00-05:30", "2026-11-29T23:00:00-00:00", "2026-11-29T23:00:00-18:00",
                      "2026-11-29T23:00:00+01", "2016-12-31T23:59:60Z",
                      "2024-02-29T12:00:00Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"])
    func readsWhatFoundationReads(_ text: String) throws {
        let date = try #require(InternetDate.parse(text))
        #expect(date == foundationReads(text))
    }

    /// A fraction of a second, which JavaScript's `toISOString()` always writes, is read and
    /// dropped: the date is the whole second Foundation's reading falls in.
    @Test(arguments: ["2026-11-29T23:00:00.000Z", "2026-11-29T23:00:00.5+01:00", "2026-11-29T23:00:00.999999Z"])
    func readsAFractionAsItsWholeSecond(_ text: String) throws {
        let date = try #require(InternetDate.parse(text))
        let foundation = try #require(foundationReads(text))
        #expect(date.timeIntervalSince1970 == foundation.timeIntervalSince1970.rounded(.down))
    }

    /// Not one real second of 1583–9999 in RFC 3339's form: Foundation refuses these too,
    /// or (`2026-02-30`, `24:00`, `23:60`, a one-digit month, `GMT`, a Julian year) read
    /// them as some other day.
    @Test(arguments: ["2026-11-29T23:00:00.Z", "2026-02-30T00:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T23:60:00Z",
                      "2026-11-29t23:00:00z", "2026-11-29 23:00:00Z", "2026-11-29T23:00:00", "2026-1-29T23:00:00Z",
                      "10000-01-01T00:00:00Z", "1500-01-01T00:00:00Z", "2026-11-29T23:00:00GMT", "2026-11-29T23:00:00+18:01",
                      " 2026-11-29T23:00:00Z", "2026-11-29T23:00:00Z ", "2023-02-29T00:00:00Z", "2026-11-29T23:00:00+1"])
    func refusesWhatIsNotOneRealSecond(_ text: String) {
        #expect(InternetDate.parse(text) == nil)
    }

    @Test func writesWhatFoundationWrote() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        for seconds in [0, 12.7, 1_795_993_200, 1_795_993_200.999, 253_402_300_799] as [Double] {
            let date = Date(timeIntervalSince1970: seconds)
            let foundation = String(decoding: try encoder.encode([date]), as: UTF8.self)
            #expect("[\"\(InternetDate.format(date))\"]" == foundation, "\(seconds)")
            #expect(InternetDate.parse(InternetDate.format(date)) == Date(timeIntervalSince1970: seconds.rounded(.down)))
        }
        #expect(InternetDate.format(Date(timeIntervalSince1970: 1e15)) == "9999-12-31T23:59:59Z")
        #expect(InternetDate.format(.distantPast) == "1583-01-01T00:00:00Z")
    }

    /// A date JSON cannot carry (an `--expires-in` of millennia) is an error, not the last second of 9999.
    @Test func aDateBeyond9999IsNotWritten() {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = InternetDate.encoding
        #expect(throws: EncodingError.self) { try encoder.encode([Date(timeIntervalSince1970: 1e15)]) }
    }

    /// A manifest whose `expires` is not a real date is refused as malformed, naming the field.
    @Test func aManifestWithAnImpossibleExpiryIsRefused() throws {
        let text = #"{"schemaVersion":1,"packages":[],"expires":"2026-02-30T00:00:00Z"}"#
        let error = #expect(throws: PkgError.self) { try Manifest.parse(Array(text.utf8), source: "test") }
        #expect(error?.code == .malformedManifest)
        #expect(error?.message.contains("expires") == true, "\(error?.message ?? "")")
    }
}
