#include "media_settings.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

static const char *nonempty(const char *name) {
    const char *value = getenv(name);
    return value && *value ? value : NULL;
}

bool media_settings_read(pkgctl_resolver_options *options, const char **error) {
    *options = (pkgctl_resolver_options){.struct_size = sizeof *options};
    options->store_root = nonempty("PKGCTL_MEDIA_ROOT");
    if (!options->store_root) {
        *error = "PKGCTL_MEDIA_ROOT is not set: the host sets it (and GST_PLUGIN_PATH) before creating its web view";
        return false;
    }
    options->upstream = nonempty("PKGCTL_MEDIA_UPSTREAM");
    options->ca_file = nonempty("PKGCTL_MEDIA_CA_FILE");
    const char *offline = nonempty("PKGCTL_MEDIA_OFFLINE");
    options->offline = offline && strcmp(offline, "0") != 0;
    options->explicit_consumption = 1;
    options->window = MEDIA_SETTINGS_WINDOW;
    return true;
}

/* RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
static bool is_scheme(const char *name) {
    if (!g_ascii_isalpha(name[0])) return false;
    for (const char *character = name + 1; *character; character++) {
        if (!g_ascii_isalnum(*character) && !strchr("+-.", *character)) return false;
    }
    return true;
}

static gpointer read_schemes(gpointer unused) {
    (void)unused;
    const char *value = nonempty(MEDIA_SETTINGS_SCHEMES_VARIABLE);
    gchar **names = g_strsplit(value ? value : "app", ",", -1);
    GPtrArray *schemes = g_ptr_array_new();
    for (gchar **name = names; *name; name++) {
        g_strstrip(*name);
        if (!**name) continue;
        if (is_scheme(*name)) {
            g_ptr_array_add(schemes, g_ascii_strdown(*name, -1));
        } else {
            g_warning(MEDIA_SETTINGS_SCHEMES_VARIABLE ": \"%s\" is not a URI scheme; left out", *name);
        }
    }
    g_strfreev(names);
    if (schemes->len == 0) g_ptr_array_add(schemes, g_strdup("app"));
    g_ptr_array_add(schemes, NULL);
    return g_ptr_array_free(schemes, FALSE); /* kept for the process: GStreamer holds the protocols */
}

const char *const *media_settings_schemes(void) {
    static GOnce once = G_ONCE_INIT;
    return g_once(&once, read_schemes, NULL);
}
