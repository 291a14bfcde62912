#ifndef HYBRID_APP_CWEBKITGTK_H
#define HYBRID_APP_CWEBKITGTK_H

#include <webkit2/webkit2.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <cairo.h>

#endif
