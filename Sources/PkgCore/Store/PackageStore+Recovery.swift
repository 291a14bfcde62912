import Glibc

extension PackageStore {
    /// Finishes what an interrupted command left: empties `staging/`, removes
    /// version directories without a record and records without a directory,
    /// and stray temp files and symlinks. Never touches an active version. Call with
    /// the lock held, before changing anything.
    public func recover() throws {
        try layout.prepare()
        try StagingDirectory.removeLeftovers(in: layout.staging)
        for name in try packageNames() {
            let active = activeVersion(of: name)
            let directory = layout.packageDirectory(name)
            for item in try FileSystem.contents(of: directory) where item != StoreLayout.currentLinkName {
                let path = directory + "/" + item
                if item.hasPrefix(FileSystem.temporaryPrefix) {
                    unlink(path)
                } else if item != active, !FileSystem.exists(layout.recordFile(name, item)) {
                    try discardTree(path)
                }
            }
        }
        // Not ROOT/objects: its temp files are objects partly received, which the next run continues.
        for directory in [layout.state, layout.trials, layout.reports] {
            for name in try FileSystem.contents(of: directory) where name.hasPrefix(FileSystem.temporaryPrefix) {
                unlink(directory + "/" + name)
            }
        }
        for name in try FileSystem.contents(of: layout.state + "/packages") {
            let records = layout.recordDirectory(name)
            for file in try FileSystem.contents(of: records) {
                let path = records + "/" + file
                if file.hasPrefix(FileSystem.temporaryPrefix) {
                    unlink(path)
                } else if file.hasSuffix(".json"),
                          !FileSystem.isDirectory(layout.versionDirectory(name, String(file.dropLast(5)))) {
                    unlink(path)
                }
            }
        }
    }

    /// Moves a directory (a version, its overlay) out of sight into `staging/` with one rename,
    /// then deletes it there: a crash midway leaves only staging debris.
    func discardTree(_ path: String) throws {
        try withStagingDirectory(prefix: "trash") { trash in
            let target = trash.path + "/version"
            if rename(path, target) != 0 { throw fileSystemError("rename \(path) to", target) }
        }
    }
}
