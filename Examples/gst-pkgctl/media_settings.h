/*
 * media_settings: the resolver settings the source reads from its environment. The element
 * runs in WebKit's web process, which inherits the UI process's environment: the host sets
 * these before it creates its first web view.
 *
 *   PKGCTL_MEDIA_ROOT      the store's root (required; without it the element fails to start)
 *   PKGCTL_MEDIA_UPSTREAM  the origin base URL for files no package has (as --upstream)
 *   PKGCTL_MEDIA_CA_FILE   PEM file of the CAs trusted for the origin (as --ca-file)
 *   PKGCTL_MEDIA_OFFLINE   "1": never ask the origin (as --offline)
 *   PKGCTL_MEDIA_SCHEMES   the URI schemes the element reads, comma-separated (default: app):
 *                          the host's custom scheme. The plugin declares a dependency on it, so
 *                          GStreamer's registry re-reads the element's protocols when it changes.
 */
#ifndef GST_PKGCTL_MEDIA_SETTINGS_H
#define GST_PKGCTL_MEDIA_SETTINGS_H

#include <pkgctl/resolver.h>
#include <stdbool.h>

/** The variable naming the schemes (plugin.c declares the registry's dependency on it). */
#define MEDIA_SETTINGS_SCHEMES_VARIABLE "PKGCTL_MEDIA_SCHEMES"

/** Body bytes a request may have delivered and the element not yet pushed downstream. */
#define MEDIA_SETTINGS_WINDOW (256 * 1024)

/**
 * Fills `options` (explicit consumption, MEDIA_SETTINGS_WINDOW) from the environment; the strings
 * point into the environment. False, with a one-line `error`, when PKGCTL_MEDIA_ROOT is unset.
 */
bool media_settings_read(pkgctl_resolver_options *options, const char **error);

/**
 * The schemes of PKGCTL_MEDIA_SCHEMES, NULL-terminated, read once per process; {"app"} when it is
 * unset or names no valid scheme (RFC 3986: a letter, then letters, digits, "+", "-" or ".").
 * An entry that is not a scheme is left out, with a warning naming it.
 */
const char *const *media_settings_schemes(void);

#endif
