// The C ABI's header, as a module the Swift implementation (PkgResolverC) imports,
// so the implementation is compiled against the very declarations C hosts use.
#include "pkgctl/resolver.h"
