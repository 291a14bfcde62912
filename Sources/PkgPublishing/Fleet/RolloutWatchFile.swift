import FoundationEssentials
import PkgCore

/// `OUT_DIR/.pkgctl-watch-NAME.json`: the step ``RolloutWatch`` is at (``RolloutStepState``,
/// its fields at the top level, as files written before the history read) and the last
/// ``RolloutDecisionRecord/limit`` decisions under `history`. A file without history reads as
/// an empty one; one whose step does not read keeps its history.
struct RolloutWatchFile: Codable, Sendable {
    var step: RolloutStepState?
    var history: [RolloutDecisionRecord] = []

    private enum Key: String, CodingKey { case history }

    init(step: RolloutStepState? = nil, history: [RolloutDecisionRecord] = []) {
        self.step = step
        self.history = history
    }

    init(from decoder: any Decoder) throws {
        step = try? RolloutStepState(from: decoder)
        history = (try? decoder.container(keyedBy: Key.self).decodeIfPresent([RolloutDecisionRecord].self, forKey: .history)) ?? []
    }

    func encode(to encoder: any Encoder) throws {
        try step?.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(history, forKey: .history)
    }

    /// The file at `path`; an empty one when there is none or it does not read.
    static func read(_ path: String) throws -> RolloutWatchFile {
        guard let bytes = try FileSystem.read(path) else { return RolloutWatchFile() }
        return (try? JSONDecoder().decode(RolloutWatchFile.self, from: Data(bytes))) ?? RolloutWatchFile()
    }

    func write(to path: String) throws {
        try FileSystem.writeAtomically(try JSONEncoder().encode(self), to: path)
    }

    /// The file at `path` with `record` added to its history (the oldest dropped past the limit),
    /// or merged into the last one when it repeats it.
    static func append(_ record: RolloutDecisionRecord, to path: String) throws {
        var file = try read(path)
        if let last = file.history.last, last.isRepeated(by: record) {
            var merged = record
            merged.time = last.time
            merged.lastTime = record.time
            merged.runs = (last.runs ?? 1) + 1
            file.history[file.history.count - 1] = merged
        } else {
            file.history = Array((file.history + [record]).suffix(RolloutDecisionRecord.limit))
        }
        try file.write(to: path)
    }
}
