// LLVMFuzzerRunDriver comes from libclang_rt.fuzzer, linked by -sanitize=fuzzer.
#include "CFuzzerDriver.h"

// LeakSanitizer does not recognise the reference a Swift global holds to an indirect
// enum's box, so the boxes PkgCore's `JSONKeySchema` statics (`manifest`, `envelope`,
// each made once on first use and kept for the process's life) are reported as leaked,
// which fails a replay and stops a fuzzing run. Suppressed by their global initializers
// (`…JSONKeySchemaO8manifest_WZ`); any other leak is still reported.
const char *__lsan_default_suppressions(void) {
    return "leak:JSONKeySchemaO*_WZ\n";
}
