import Foundation

/// `Examples/HybridAppPyQt`: the Qt WebEngine host in Python on PyQt6 from PyPI (a newer Qt than
/// Debian's 6.4), which `PyQtHostTests` drive.
enum PyQtHost {
    /// The app's script.
    static let script = BundleFixtures.repository + "/Examples/HybridAppPyQt/hybrid_app_pyqt.py"

    /// PyQt6's WebEngine imports, and this run loads an uninstrumented library (a sanitizer's
    /// instrumented one cannot be loaded by Python).
    static let isAvailable = !Sanitizer.isActive
        && (try? PackagingCommand.run("/usr/bin/env", ["python3", "-c", "import PyQt6.QtWebEngineCore"]).status) == 0
}
