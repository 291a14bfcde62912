import Foundation

/// `Examples/HybridAppPyQt`: the Qt WebEngine host in Python on PyQt6 from PyPI (a newer Qt than
/// Debian's 6.4), which `PyQtHostTests` drive.
enum PyQtHost {
    /// The app's script.
    static let script = BundleFixtures.repository + "/Examples/HybridAppPyQt/hybrid_app_pyqt.py"

    /// PyQt6's WebEngine imports, and there is an uninstrumented library to load (Python cannot
    /// load a sanitizer's instrumented one).
    static let isAvailable = UninstrumentedBuild.library != nil
        && (try? PackagingCommand.run("/usr/bin/env", ["python3", "-c", "import PyQt6.QtWebEngineCore"]).status) == 0
}
