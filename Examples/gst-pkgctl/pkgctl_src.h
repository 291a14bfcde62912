/*
 * pkgctlsrc: a GStreamer source for the host's custom scheme (app:// by default), read through pkgctl's resolver, so that
 * WebKitGTK's media player (playbin, which has no source for a custom scheme: WebKit bug
 * 146351) plays <video>/<audio> from an installed package or the origin.
 */
#ifndef GST_PKGCTL_SRC_H
#define GST_PKGCTL_SRC_H

#include <gst/base/gstbasesrc.h>

G_BEGIN_DECLS

#define GST_TYPE_PKGCTL_SRC (gst_pkgctl_src_get_type())
G_DECLARE_FINAL_TYPE(GstPkgctlSrc, gst_pkgctl_src, GST, PKGCTL_SRC, GstBaseSrc)

G_END_DECLS

#endif
