// The environment Qt WebEngine reads at start, set (when the caller has not set it) so the
// app runs headless and as root, as the test suite runs it. README.md says why each is needed.
#pragma once

void engineEnvironmentPrepare();
