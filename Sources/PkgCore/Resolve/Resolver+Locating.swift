import Glibc

/// Finding the local answer to a request, or what its miss is made of.
extension Resolver {
    /// The local answer for a GET or HEAD, or nil when neither the package nor
    /// the overlay has the file (then use ``start(_:delivery:)``). Throws
    /// ``PkgError/Code/invalidArgument`` for a refused path. The server's fast
    /// path: send `answer.response`, then `answer.range` of `answer.file` with
    /// `sendfile`/`FileRegion`; no task, no copy.
    public func answerLocally(_ request: ResourceRequest) throws(PkgError) -> LocalAnswer? {
        guard request.isRead else { return nil }
        if case .local(let answer, _) = try locate(request, recordingLaunches: true) { return answer }
        return nil
    }

    /// What ``start(_:delivery:)`` would do for `request`, without fetching anything.
    public func plan(for request: ResourceRequest) throws(PkgError) -> ResolutionPlan {
        switch try locate(request) {
        case .local(let answer, let resourceClass):
            var plan = ResolutionPlan(resourceClass: resourceClass, localFile: answer.file?.path,
                                      fromOverlay: false, coalesced: false)
            switch answer.source {
            case .package(let name, let version):
                plan.package = name
                plan.version = version
            case .overlay(let name, let version):
                plan.package = name
                plan.version = version
                plan.fromOverlay = true
            }
            return plan
        case .miss(let miss):
            let upstreamPlan = upstreamPlan(request, for: miss)
            return ResolutionPlan(resourceClass: miss.resourceClass, package: miss.match?.route.mount.name,
                                  version: miss.match?.route.mount.version, localFile: nil, fromOverlay: false,
                                  upstreamURL: upstreamPlan.url,
                                  overlayPath: upstreamPlan.overlayKey.map { overlay.root + "/" + $0 },
                                  coalesced: upstreamPlan.coalescingKey != nil)
        }
    }

    /// Where a request's answer is: here, or not (then it is a task's).
    package enum Location {
        case local(LocalAnswer, ResourceClass)
        case miss(Miss)
    }

    /// A request neither the package nor the overlay answers (every non-GET/HEAD one is such):
    /// what its upstream plan is built from, only when it is fetched or planned.
    package struct Miss {
        let resourceClass: ResourceClass
        let match: RouteMatch?
        let overlayKey: String?

        /// Whether a route of the active versions holds the request's path.
        package var isRouted: Bool { match != nil }
    }

    /// The local answer to `request` or its miss, routing it once (``answerLocally(_:)`` without
    /// dropping the miss, for a server that words its 404 by it). `recordingLaunches`: the request
    /// is being answered (not planned), so it counts in the launch of a version on trial (``LaunchRecorder``).
    package func locate(_ request: ResourceRequest, recordingLaunches: Bool = false) throws(PkgError) -> Location {
        let path = try RequestPath.decode(request.rawPath)
        try RequestPath.checkQuery(request.query)
        let resourceClass = ResourceClass.classify(accept: request.header("Accept"), path: path)
        let match = route(host: request.host, path: path)
        let isRead = request.isRead
        if isRead, let match {
            let mount = match.route.mount
            var file = mount.file(at: match.relativePath)
            var fellBack = false
            if file == nil, let fallback = mount.spaFallback, resourceClass == .html {
                // A navigation to a route of a single-page app: its document handles the path.
                file = mount.file(at: fallback)
                fellBack = file != nil
            }
            if recordingLaunches, file == nil, let launches = mount.launches {
                if resourceClass == .html {
                    launches.navigation(path: path, answered: false)
                } else {
                    launches.missed(path: path, resourceClass: resourceClass)
                }
            }
            if file == nil, isRead, let answer = onlyImageVariantAnswer(request, match) {
                return .local(answer, resourceClass)
            }
            if let file {
                return packageAnswer(file, match, request, path: path, resourceClass: resourceClass, fellBack: fellBack,
                                     recordingLaunches: recordingLaunches)
            }
        }
        let overlayKey = Overlay.key(host: request.host, path: path, query: request.query, match: match)
        if isRead, let overlayKey {
            let source = LocalAnswer.Source.overlay(package: match?.route.mount.name, version: match?.route.mount.version)
            if let file = overlay.open(overlayKey) {
                let type = MediaType.forPath(file.relativePath, fallback: resourceClass)
                return .local(LocalAnswer.make(file: file, request: request, contentType: type, source: source),
                              resourceClass)
            }
            if let stored = overlay.openRepresentation(key: overlayKey, headers: request.headers) {
                return .local(LocalAnswer.make(file: stored.file, request: request, contentType: stored.contentType,
                                               source: source, vary: stored.vary), resourceClass)
            }
        }
        return .miss(Miss(resourceClass: resourceClass, match: match, overlayKey: overlayKey))
    }

    /// The answer from the package's `file` for `request` (routed by `match`): a redirect for a
    /// folder named without its slash, else the file, its lighter image variant or its encoded
    /// sibling. `fellBack`: `file` is the SPA fallback for a path the package lacks.
    private func packageAnswer(_ file: LocalFile, _ match: RouteMatch, _ request: ResourceRequest, path: String,
                               resourceClass: ResourceClass, fellBack: Bool, recordingLaunches: Bool) -> Location {
        let mount = match.route.mount
        let source = LocalAnswer.Source.package(name: mount.name, version: mount.version)
        // A folder named without its slash is redirected to it, as nginx does: served
        // here, the page's relative URLs would resolve one folder up.
        // (A folder's index was opened: its path is the one asked for plus "/index.html".)
        if match.lacksTrailingSlash || (file.relativePath.utf8.count == match.relativePath.utf8.count + 11
                                        && file.relativePath.hasSuffix("/index.html")) {
            // One leading slash: `//docs/` would be another host's URL (protocol-relative).
            var path = Substring(request.rawPath)
            while path.hasPrefix("//") { path = path.dropFirst() }
            let location = String(path) + "/" + (request.query.isEmpty ? "" : "?" + request.query)
            return .local(LocalAnswer.redirect(to: location, source: source), resourceClass)
        }
        // A page answered (not a redirect to it: its navigation comes next) starts a launch.
        if recordingLaunches, resourceClass == .html { mount.launches?.navigation(path: path, answered: true) }
        let type = MediaType.forPath(file.relativePath, fallback: resourceClass)
        let codings = mount.codings(besides: file.relativePath)
        let markedImmutable = mount.isMarkedImmutable(file.relativePath)
        let declared = mount.declaredHeaders(for: file.relativePath)
        if ImageVariant.mayHaveVariants(file.relativePath) {
            let variants = mount.imageVariants(besides: file.relativePath)
            if !variants.isEmpty {
                let vary = LocalAnswer.varyValue(accept: true, encoding: !codings.isEmpty)
                if let variant = ImageVariant.preferred(for: request.header("Accept"), among: variants),
                   let lighter = mount.file(at: file.relativePath + variant.fileSuffix), lighter.size < file.size {
                    return .local(LocalAnswer.make(file: lighter, request: request, contentType: variant.mediaType,
                                                   source: source, vary: vary, servedPath: file.relativePath,
                                                   markedImmutable: markedImmutable, declared: declared),
                                  resourceClass)
                }
                return .local(LocalAnswer.make(file: file, request: request, contentType: type, source: source,
                                               vary: vary, markedImmutable: markedImmutable, declared: declared),
                              resourceClass)
            }
        }
        // A sibling the site made itself may be larger than the file: then the file goes out.
        if let coding = ContentCoding.preferred(for: request.header("Accept-Encoding"), among: codings),
           let encoded = mount.file(at: file.relativePath + coding.fileSuffix), encoded.size < file.size {
            return .local(LocalAnswer.make(file: encoded, request: request, contentType: type, source: source,
                                           coding: coding, vary: LocalAnswer.varyValue(accept: fellBack, encoding: true),
                                           markedImmutable: markedImmutable, declared: declared),
                          resourceClass)
        }
        return .local(LocalAnswer.make(file: file, request: request, contentType: type, source: source,
                                       vary: LocalAnswer.varyValue(accept: fellBack, encoding: !codings.isEmpty),
                                       markedImmutable: markedImmutable, declared: declared), resourceClass)
    }

    /// The answer for a PNG or JPEG that the active version holds only as image variants
    /// (installed by `update --accept-images`, or shipped so by the site): the one `Accept`
    /// prefers, else the first there that `Accept` does not refuse by name (the device said its
    /// engine decodes it; a wildcard does not name it). Nil when there is none: the request
    /// goes on as a miss.
    private func onlyImageVariantAnswer(_ request: ResourceRequest, _ match: RouteMatch) -> LocalAnswer? {
        let mount = match.route.mount, path = match.relativePath
        guard ImageVariant.mayHaveVariants(path) else { return nil }
        let variants = mount.imageVariants(besides: path)
        guard let variant = ImageVariant.preferred(for: request.header("Accept"), among: variants)
                ?? ImageVariant.allCases.first(where: { variants.contains($0) && !$0.isRefused(by: request.header("Accept")) }),
              let file = mount.file(at: path + variant.fileSuffix) else { return nil }
        return LocalAnswer.make(file: file, request: request, contentType: variant.mediaType,
                                source: .package(name: mount.name, version: mount.version), vary: "Accept",
                                servedPath: path, markedImmutable: mount.isMarkedImmutable(path),
                                declared: mount.declaredHeaders(for: path))
    }
}
