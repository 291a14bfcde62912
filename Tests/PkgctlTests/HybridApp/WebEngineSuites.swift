import Testing

/// Every suite that opens a web engine (WebKitGTK, Qt WebEngine, PyQt6's Chromium), run one test
/// at a time (`.serialized` reaches the nested suites): two engines rendering side by side on
/// the 2-core CI machine made the 500-load memory bound go over, about one run in three. (The
/// demo's stylesheet check that also failed then was Qt 6.4's Chromium running the deferred
/// script before the stylesheet had arrived, 1 open in 25 under CPU load even alone: the demo
/// now checks once the page has loaded.)
@Suite(.serialized) enum WebEngineSuites {}
