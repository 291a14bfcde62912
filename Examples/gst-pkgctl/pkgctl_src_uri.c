/*
 * pkgctlsrc's location and its GstURIHandler: the element claims the schemes the host named in
 * PKGCTL_MEDIA_SCHEMES (media_settings.h), so playbin picks it for the host's custom scheme.
 */
#include "pkgctl_src_private.h"

#include "media_settings.h"

static gboolean reads_scheme(const gchar *uri) {
    gchar *scheme = gst_uri_get_protocol(uri); /* lower-cased; NULL when the URI has none */
    gboolean known = FALSE;
    for (const char *const *name = media_settings_schemes(); scheme && *name && !known; name++) {
        known = g_str_equal(scheme, *name);
    }
    g_free(scheme);
    return known;
}

gboolean gst_pkgctl_src_set_location(GstPkgctlSrc *self, const gchar *uri, GError **error) {
    if (GST_STATE(self) != GST_STATE_NULL && GST_STATE(self) != GST_STATE_READY) {
        g_set_error_literal(error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE, "the URI changes only in NULL or READY");
        return FALSE;
    }
    if (uri && !reads_scheme(uri)) {
        gchar *schemes = g_strjoinv(",", (gchar **)media_settings_schemes());
        g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_UNSUPPORTED_PROTOCOL,
                    "not a URI of " MEDIA_SETTINGS_SCHEMES_VARIABLE " (%s): %s", schemes, uri);
        g_free(schemes);
        return FALSE;
    }
    g_mutex_lock(&self->uri_lock);
    g_free(self->uri);
    self->uri = g_strdup(uri);
    g_mutex_unlock(&self->uri_lock);
    return TRUE;
}

static GstURIType uri_type(GType type) {
    (void)type;
    return GST_URI_SRC;
}

static const gchar *const *uri_protocols(GType type) {
    (void)type;
    return media_settings_schemes();
}

static gchar *uri_get(GstURIHandler *handler) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(handler);
    g_mutex_lock(&self->uri_lock);
    gchar *uri = g_strdup(self->uri);
    g_mutex_unlock(&self->uri_lock);
    return uri;
}

static gboolean uri_set(GstURIHandler *handler, const gchar *uri, GError **error) {
    return gst_pkgctl_src_set_location(GST_PKGCTL_SRC(handler), uri, error);
}

void gst_pkgctl_src_uri_handler_init(gpointer iface, gpointer data) {
    (void)data;
    GstURIHandlerInterface *handler = iface;
    handler->get_type = uri_type;
    handler->get_protocols = uri_protocols;
    handler->get_uri = uri_get;
    handler->set_uri = uri_set;
}
