import Glibc

/// An active package version as the resolver serves it: an open descriptor of
/// its version directory, so files are opened relative to it (and cannot leave it).
/// Or a build folder (``SourceFolder``), whose files may change: opened per request.
final class PackageMount: @unchecked Sendable {
    let name: String
    let version: String
    let directory: String
    /// `ROOT/packages/NAME`, whose `current` link is read per request to notice an
    /// update (relative to this descriptor: one path component to resolve); -1 for a folder.
    let packageDescriptor: Int32
    /// Whether this is a build folder: nothing about its files is remembered between requests.
    let isFolder: Bool
    let directoryDescriptor: Int32
    /// The document served for navigations that match no file (``ManifestEntry/spaFallback``).
    let spaFallback: String?
    /// Globs of files the publisher marked immutable (``ManifestEntry/immutable``).
    let immutableGlobs: [String]
    /// Response headers the publisher declared (``ManifestEntry/headers``).
    let headerRules: [PackageHeader]
    /// What the resolver saw go wrong under this version's routes; nil for a folder.
    let signals: ServingSignalCounter?
    /// The version's launches, while it is on trial by launches; nil otherwise.
    let launches: LaunchRecorder?

    init(name: String, version: String, directory: String, layout: StoreLayout, spaFallback: String?,
         immutableGlobs: [String] = [], declaredHeaders: [PackageHeader] = [], recordsLaunches: Bool = false) throws {
        headerRules = declaredHeaders
        signals = ServingSignalCounter(name: name, version: version, layout: layout)
        launches = recordsLaunches ? LaunchRecorder(name: name, version: version, layout: layout) : nil
        let packageDirectory = layout.packageDirectory(name)
        self.name = name
        self.version = version
        self.directory = directory
        self.spaFallback = spaFallback
        self.immutableGlobs = immutableGlobs
        let packageFD = open(packageDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard packageFD >= 0 else { throw fileSystemError("open", packageDirectory) }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            close(packageFD)
            throw fileSystemError("open", directory)
        }
        packageDescriptor = packageFD
        directoryDescriptor = fd
        isFolder = false
    }

    /// A build folder served as it is; its files are read afresh on every request.
    init(folder: SourceFolder) throws {
        name = "source"
        version = "folder"
        directory = folder.directory
        spaFallback = folder.spaFallback
        immutableGlobs = folder.immutable
        headerRules = folder.headers
        signals = nil
        launches = nil
        let fd = open(folder.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw fileSystemError("open", folder.directory) }
        packageDescriptor = -1
        directoryDescriptor = fd
        isFolder = true
    }

    deinit {
        close(directoryDescriptor)
        if packageDescriptor >= 0 { close(packageDescriptor) }
    }

    /// The headers the publisher declared for the file at `relativePath`.
    func declaredHeaders(for relativePath: String) -> [(name: String, value: String)] {
        headerRules.filter { fnmatch($0.files, relativePath, 0) == 0 }.map { ($0.name, $0.value) }
    }

    /// Whether the publisher marked the file at `relativePath` immutable.
    func isMarkedImmutable(_ relativePath: String) -> Bool {
        immutableGlobs.contains { fnmatch($0, relativePath, 0) == 0 }
    }

    /// Small files kept in memory and paths known to be absent. An installed
    /// version never changes, so both stay true while this mount is current.
    private let memory = PosixMutex(FileMemory())

    private struct FileMemory {
        var files: [String: LocalFile] = [:]
        /// Larger files, kept open: no open, stat or validator formatting per request.
        var openFiles: [String: LocalFile] = [:]
        var bytes = 0
        var absent = Set<String>()
        var codings: [String: Set<ContentCoding>] = [:]
        var variants: [String: Set<ImageVariant>] = [:]
    }

    /// Files up to this size are kept in memory once read, within ``memoryBudget`` per version.
    static let memoryFileLimit: Int64 = 256 * 1024
    static let memoryBudget = 32 << 20
    /// Most absent paths remembered per version.
    static let absentLimit = 4096
    /// Most larger files kept open per version.
    static let openFileLimit = 64
    /// Most files whose encoded siblings (and, apart, whose image variants) are remembered per version.
    static let codingsLimit = 16384

    /// The file at `relativePath` in this version (a directory gives its
    /// `index.html`), or nil when there is none. Small files come from memory
    /// after their first read: no open, stat or read per request (a folder's are opened each time).
    func file(at relativePath: String) -> LocalFile? {
        if isFolder {
            return withFolder { LocalFile.open(under: $0, directory: directory, relativePath: relativePath) } ?? nil
        }
        enum Known { case file(LocalFile), absent, unknown }
        let known: Known = memory.withLock { memory in
            if let file = memory.files[relativePath] ?? memory.openFiles[relativePath] { return .file(file) }
            return memory.absent.contains(relativePath) ? .absent : .unknown
        }
        switch known {
        case .file(let file): return file
        case .absent: return nil
        case .unknown: break
        }
        guard let file = LocalFile.open(under: directoryDescriptor, directory: directory, relativePath: relativePath) else {
            // Only a definite "not there" is remembered; EMFILE and the like may pass.
            let code = errno
            let definite = code == ENOENT || code == ENOTDIR || code == ELOOP || code == EXDEV
            memory.withLock { memory in
                if definite, memory.absent.count < Self.absentLimit { memory.absent.insert(relativePath) }
            }
            return nil
        }
        let fits = file.size <= Self.memoryFileLimit
            && memory.withLock { $0.bytes + Int(file.size) <= Self.memoryBudget }
        guard fits, let loaded = file.loadedIntoMemory() else {
            return memory.withLock { memory in
                if let kept = memory.openFiles[relativePath] { return kept }
                if memory.openFiles.count < Self.openFileLimit { memory.openFiles[relativePath] = file }
                return file
            }
        }
        memory.withLock { memory in
            guard memory.files[relativePath] == nil, memory.bytes + Int(loaded.size) <= Self.memoryBudget else { return }
            memory.files[relativePath] = loaded
            memory.bytes += Int(loaded.size)
        }
        return loaded
    }

    /// The codings the version holds `relativePath` in besides identity: its
    /// `.br` and `.gz` siblings, by a look at their names (only the one a request
    /// chooses is opened, by ``file(at:)``). Remembered per file after the first look (not for a folder).
    func codings(besides relativePath: String) -> Set<ContentCoding> {
        siblings(besides: relativePath, remembered: \.codings)
    }

    /// The image variants the version holds `relativePath` in: its `.avif` and `.webp`
    /// siblings (``ImageVariant``), looked up and remembered as ``codings(besides:)`` are.
    func imageVariants(besides relativePath: String) -> Set<ImageVariant> {
        siblings(besides: relativePath, remembered: \.variants)
    }

    private func siblings<Kind: SiblingKind>(besides relativePath: String,
                                             remembered: WritableKeyPath<FileMemory, [String: Set<Kind>]> & Sendable) -> Set<Kind> {
        if isFolder { return withFolder { folderSiblings(besides: relativePath, in: $0) } ?? [] }
        if let known = memory.withLock({ $0[keyPath: remembered][relativePath] }) { return known }
        var found = Set<Kind>()
        for kind in Kind.allCases {
            var info = stat()
            if fstatat(directoryDescriptor, relativePath + kind.fileSuffix, &info, AT_SYMLINK_NOFOLLOW) == 0,
               (info.st_mode & S_IFMT) == S_IFREG {
                found.insert(kind)
            }
        }
        memory.withLock { memory in
            if memory[keyPath: remembered].count < Self.codingsLimit { memory[keyPath: remembered][relativePath] = found }
        }
        return found
    }

    /// Runs `body` with a descriptor of the folder opened now, by its path: a build that
    /// deletes and remakes the folder is followed (a descriptor kept open would still name
    /// the deleted one). Nil when the folder cannot be opened.
    private func withFolder<T>(_ body: (Int32) -> T) -> T? {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return body(fd)
    }

    /// A folder's siblings of `relativePath` that are regular files no older than it: a build
    /// that rewrote the file but not its `.br` would otherwise serve the old bytes to browsers.
    /// (A folder that has only the variant of an image offers none: the original decides.)
    private func folderSiblings<Kind: SiblingKind>(besides relativePath: String, in folder: Int32) -> Set<Kind> {
        var file = stat()
        guard fstatat(folder, relativePath, &file, AT_SYMLINK_NOFOLLOW) == 0 else { return [] }
        var found = Set<Kind>()
        for kind in Kind.allCases {
            var info = stat()
            if fstatat(folder, relativePath + kind.fileSuffix, &info, AT_SYMLINK_NOFOLLOW) == 0,
               (info.st_mode & S_IFMT) == S_IFREG,
               (info.st_mtim.tv_sec, info.st_mtim.tv_nsec) >= (file.st_mtim.tv_sec, file.st_mtim.tv_nsec) {
                found.insert(kind)
            }
        }
        return found
    }

    /// Whether `current` still names this version: one readlinkat(2), no allocation. A folder always is.
    func isCurrent() -> Bool {
        if isFolder { return true }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            let count = readlinkat(packageDescriptor, StoreLayout.currentLinkName, buffer.baseAddress!, 256)
            guard count > 0, count < 256 else { return false }
            var matches = count == version.utf8.count
            if matches {
                var i = 0
                for byte in version.utf8 {
                    if UInt8(bitPattern: buffer[i]) != byte { matches = false; break }
                    i += 1
                }
            }
            return matches
        }
    }
}
