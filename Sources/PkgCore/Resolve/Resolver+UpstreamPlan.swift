/// What a miss asks of the origin.
extension Resolver {
    /// The origin fetch for `request`'s `miss`: URL, headers, whether it is shared and written through.
    func upstreamPlan(_ request: ResourceRequest, for miss: Miss) -> UpstreamPlan {
        let resourceClass = miss.resourceClass, match = miss.match, overlayKey = miss.overlayKey
        var base = "https://" + request.host
        if let match {
            let routeKey = match.route.host + match.route.prefix
            if let override = configuration.routeUpstreams[routeKey] ?? configuration.routeUpstreams[match.route.host]
                ?? configuration.upstream {
                base = override
            }
        } else if let override = configuration.upstream {
            base = override
        }
        var url = base + request.rawPath
        if !request.query.isEmpty { url += "?" + request.query }
        let isGet = request.method == "GET"
        let ranged = request.header("Range") != nil
        let shareable = isGet && resourceClass != .other && !ranged
        let writesThrough: Bool
        switch resourceClass {
        case .html, .script, .style: writesThrough = true
        case .image: writesThrough = configuration.writeThroughImages || request.isPrefetch
        case .other: writesThrough = false
        }
        var headers = request.headers
        if shareable {
            // One full, identity-coded 200 for every task sharing the fetch and for the overlay.
            headers.removeAll { UpstreamPlan.droppedFromSharedFetches.contains($0.name.lowercased()) }
        }
        // An answer to a request with credentials is for that user alone (RFC 9111 §3.5).
        let hasCredentials = request.header("Authorization") != nil
        var coalescingKey: String?
        if shareable {
            // Requests with different credentials never share an answer.
            // Nor do requests an origin may answer otherwise by content negotiation (Vary).
            coalescingKey = url + "\n" + (request.header("Cookie") ?? "") + "\n" + (request.header("Authorization") ?? "")
                + "\n" + (request.header("Accept") ?? "") + "\n" + (request.header("Accept-Language") ?? "")
        }
        return UpstreamPlan(url: url, method: request.method, headers: headers, body: request.body,
                            resourceClass: resourceClass, coalescingKey: coalescingKey,
                            overlayKey: shareable && writesThrough && !hasCredentials ? overlayKey : nil,
                            signals: Self.countsAsSignal(request, resourceClass) ? match?.route.mount.signals : nil)
    }

    /// Whether a miss of `request` says something about the package (``ServingSignals``): a read
    /// of a page, script, style or image it could have shipped; not an API call (`other`, POST).
    private static func countsAsSignal(_ request: ResourceRequest, _ resourceClass: ResourceClass) -> Bool {
        request.isRead && resourceClass != .other
    }
}
