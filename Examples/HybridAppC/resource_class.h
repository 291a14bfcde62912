/* What kind of resource a request asks for, as the log shows it. */
#ifndef HYBRID_APP_RESOURCE_CLASS_H
#define HYBRID_APP_RESOURCE_CLASS_H

/* "html", "script", "style", "image" or "other", by the resolver's rule (PkgCore's ResourceClass):
 * an Accept with text/html; a .js/.mjs/.cjs path; a .css path or an Accept with text/css;
 * an Accept with image/ or an image extension; else other. The C ABI does not report it. */
const char *resource_class(const char *accept, const char *url);

#endif
