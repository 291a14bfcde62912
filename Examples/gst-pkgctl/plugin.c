/* The `pkgctl` plugin: one element, pkgctlsrc (see pkgctl_src.h and README.md). */
#include "pkgctl_src.h"

#include <gst/gst.h>

#ifndef PACKAGE
#define PACKAGE "gst-pkgctl"
#endif

/* PRIMARY: uridecodebin takes the highest-ranked source for a protocol, and only this one knows app://. */
static gboolean plugin_init(GstPlugin *plugin) {
    return gst_element_register(plugin, "pkgctlsrc", GST_RANK_PRIMARY, GST_TYPE_PKGCTL_SRC);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, pkgctl, "app:// media through pkgctl's resolver", plugin_init,
                  "0.1.0", "Apache 2.0", PACKAGE, "https://github.com/pkgctl/pkgctl")
