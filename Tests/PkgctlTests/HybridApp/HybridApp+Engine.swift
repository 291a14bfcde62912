import Foundation

/// Where the engines differ, said once. The third build, `qt`, is `Examples/HybridAppQt`
/// (C++, the resolver's C ABI inside Qt WebEngine 6.4.2's Chromium, Debian 12), named by
/// `HYBRID_APP_QT`; its custom-scheme API is smaller than WebKitGTK's, and its README quotes
/// the headers.
extension HybridApp {
    /// Whether a page's `fetch()` reaches the app's scheme. Qt 6.4 has no
    /// `QWebEngineUrlScheme::FetchApiAllowed` (the flag came in 6.6; `qwebengineurlscheme.h`'s
    /// `enum Flag` ends at `CorsEnabled = 0x80`): Chromium refuses the call in the page
    /// (`Fetch API cannot load app://…. URL scheme "app" is not supported`) and no request
    /// reaches the app. `XMLHttpRequest`, navigations and subresources do.
    var fetchesTheScheme: Bool { name != "qt" }

    /// Whether the engine gives a scheme handler the request's body. Qt 6.4's
    /// `QWebEngineUrlRequestJob` has no `requestBody()` (6.7 adds it): its request API is
    /// `requestUrl() const; requestMethod() const; initiator() const; requestHeaders() const;`.
    var forwardsRequestBodies: Bool { name != "qt" }

    /// Whether a response's status and headers reach the page. Qt 6.4 answers a job with
    /// `void reply(const QByteArray &contentType, QIODevice *device);` only: the page sees a
    /// 200 with that type, and none of the package's declared headers.
    var passesResponseHeaders: Bool { name != "qt" }
}

extension HybridAppProcess.Result {
    /// Chromium's refusal of `fetch()` for a scheme without `FetchApiAllowed`, as Qt prints the
    /// page's console (`js: …`).
    var fetchRefused: Bool { log.contains { $0.contains("Fetch API cannot load app://") && $0.contains("is not supported") } }
}

extension HybridAppPages {
    /// `post`, through `XMLHttpRequest` (which Qt 6.4's Chromium lets reach the scheme).
    static let postWithXHR = """
        <!doctype html><html><body><p id="out">waiting</p><script>
        const request = new XMLHttpRequest();
        request.open('POST', '/echo-post');
        request.setRequestHeader('Content-Type', 'text/plain');
        request.onloadend = () => {
          document.getElementById('out').textContent = 'answer:' + request.status + ':' + request.responseText.trim();
          document.body.dataset.done = '1';
        };
        request.send('hello from webkit');
        </script></body></html>
        """

    /// A page asking `path` for `range` with an `XMLHttpRequest`, showing the status, the body
    /// and `Content-Range`.
    static func range(_ path: String, _ range: String) -> String {
        """
        <!doctype html><html><body><p id="out">waiting</p><script>
        const request = new XMLHttpRequest();
        request.open('GET', '\(path)');
        request.setRequestHeader('Range', '\(range)');
        request.onloadend = () => {
          document.getElementById('out').textContent = 'status:' + request.status + ' body:' + request.responseText
            + ' range:' + request.getResponseHeader('content-range');
          document.body.dataset.done = '1';
        };
        request.send();
        </script></body></html>
        """
    }
}
