/* The `pkgctl` plugin: one element, pkgctlsrc (see pkgctl_src.h and README.md). */
#include "media_settings.h"
#include "pkgctl_src.h"

#include <gst/gst.h>

#ifndef PACKAGE
#define PACKAGE "gst-pkgctl"
#endif

/* PRIMARY: uridecodebin takes the highest-ranked source for a protocol, and only this one knows the
 * host's scheme. The registry caches an element's protocols with the plugin: the dependency on
 * PKGCTL_MEDIA_SCHEMES makes GStreamer load the plugin again when the variable's value changes. */
static gboolean plugin_init(GstPlugin *plugin) {
    gst_plugin_add_dependency_simple(plugin, MEDIA_SETTINGS_SCHEMES_VARIABLE, NULL, NULL, GST_PLUGIN_DEPENDENCY_FLAG_NONE);
    return gst_element_register(plugin, "pkgctlsrc", GST_RANK_PRIMARY, GST_TYPE_PKGCTL_SRC);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, pkgctl, "custom-scheme media through pkgctl's resolver", plugin_init,
                  "0.1.0", "Apache 2.0", PACKAGE, "https://github.com/pkgctl/pkgctl")
