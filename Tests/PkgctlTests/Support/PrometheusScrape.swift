import Foundation

/// A Prometheus text exposition as prometheus-client's own parser (PyPI
/// `prometheus-client`, `text_string_to_metric_families`) reads it.
struct PrometheusScrape {
    /// One sample: `pkgctl_requests_total{class="html",source="package",status="200"} 3`.
    struct Sample: Decodable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    static let parserIsInstalled = pythonModuleIsInstalled("prometheus_client.parser")

    let samples: [Sample]

    /// Parses `text` with prometheus-client; throws when the parser refuses it.
    init(_ text: Data) throws {
        let input = try TemporaryDirectory(prefix: "pkgctl-scrape")
        let file = try input.write(Array(text), to: "metrics.txt")
        let json: String
        do {
            json = try runCommand("/usr/bin/env", ["python3", "-c", """
                import json, sys
                from prometheus_client.parser import text_string_to_metric_families
                text = open(sys.argv[1], encoding="utf-8").read()
                print(json.dumps([{"name": s.name, "labels": s.labels, "value": s.value}
                                  for family in text_string_to_metric_families(text) for s in family.samples]))
                """, file])
        } catch {
            throw TestSupportError("prometheus-client refused the scrape: \(error)")
        }
        samples = try JSONDecoder().decode([Sample].self, from: Data(json.utf8))
    }

    /// The value of the sample `name` with exactly `labels`; nil when there is none.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// Every sample named `name`.
    func samples(named name: String) -> [Sample] {
        samples.filter { $0.name == name }
    }
}
