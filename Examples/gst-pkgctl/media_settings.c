#include "media_settings.h"

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
