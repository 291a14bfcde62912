/// What the router found for a request: the route, and the file path relative
/// to the version directory (`index.html` already appended for `/app` or `/app/`).
struct RouteMatch: Sendable {
    let route: Route
    let relativePath: String
}
