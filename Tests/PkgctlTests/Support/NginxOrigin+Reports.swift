@testable import PkgCore
@testable import PkgPublishing

extension NginxOrigin {
    /// The outcome reports devices sent, read back from nginx's access log in order.
    func outcomeReports() -> [OutcomeReport] {
        settledAccessLog().compactMap { line in
            guard let query = line.split(separator: " ").first?.split(separator: "?", maxSplits: 1),
                  query.first == "/report/v1", query.count == 2 else { return nil }
            return OutcomeReport(query: query[1])
        }
    }
}
