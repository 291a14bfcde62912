#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (what its own main() calls), for a program whose main is Swift's:
/// SwiftPM links an executable's entry point as main, so libFuzzer's main is not used.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
