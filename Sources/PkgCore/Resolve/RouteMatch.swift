/// What the router found for a request: the route, and the file path relative
/// to the version directory (`index.html` already appended for `/app` or `/app/`).
struct RouteMatch: Sendable {
    let route: Route
    let relativePath: String
    /// The request named the route's own folder without its trailing slash (`/app` for
    /// the route `/app`): a page there must be reached as `/app/`, or its relative URLs
    /// resolve outside the route.
    var lacksTrailingSlash = false
}
