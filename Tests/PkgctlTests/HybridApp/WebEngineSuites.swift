import Testing

/// Every suite that opens a web engine (WebKitGTK, Qt WebEngine, PyQt6's Chromium), run one test
/// at a time (`.serialized` reaches the nested suites): two engines rendering side by side on
/// the 2-core CI machine made the demo's stylesheet check fail in the Qt app and the 500-load
/// memory bound go over, about one run in three; each passes alone, also under CPU load.
@Suite(.serialized) enum WebEngineSuites {}
