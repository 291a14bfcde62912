#include "engine_environment.h"

#include <QByteArray>
#include <QtGlobal>

#include <unistd.h>

namespace {

void setDefault(const char *name, const QByteArray &value) {
    if (!qEnvironmentVariableIsSet(name)) qputenv(name, value);
}

}  // namespace

void engineEnvironmentPrepare() {
    // No window system needed: Qt draws into memory, which --screenshot grabs.
    setDefault("QT_QPA_PLATFORM", "offscreen");
    // Software rendering throughout: under Xvfb Chromium otherwise finds GLX, starts its GPU
    // path, and now and then logs a failed command buffer (kTransientFailure) mid-run.
    setDefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu");
    // Chromium refuses to start as root with its sandbox (the suite runs as root in CI's
    // container). An ordinary user keeps the sandbox.
    if (geteuid() == 0) setDefault("QTWEBENGINE_DISABLE_SANDBOX", "1");
}
