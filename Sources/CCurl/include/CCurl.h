#ifndef PKG_CCURL_H
#define PKG_CCURL_H

#include <curl/curl.h>

/* Typed wrappers for libcurl's variadic functions, which Swift cannot call. */

typedef size_t (*pkg_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*pkg_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);
typedef int (*pkg_curl_socket_callback)(CURL *easy, curl_socket_t socket, int what,
                                        void *context, void *socket_context);
typedef int (*pkg_curl_timer_callback)(CURLM *multi, long timeout_ms, void *context);

/* Macros Swift does not import: a write callback's "pause" answer and curl_easy_pause's "go on". */
static const size_t pkg_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static const int pkg_curlpause_cont = CURLPAUSE_CONT;

CURLcode pkg_curl_global_init(void);

CURLcode pkg_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode pkg_curl_easy_setopt_ptr(CURL *easy, CURLoption option, const void *value);
CURLcode pkg_curl_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value);
CURLcode pkg_curl_easy_setopt_data_callback(CURL *easy, CURLoption option, pkg_curl_data_callback callback);
CURLcode pkg_curl_easy_setopt_progress_callback(CURL *easy, pkg_curl_progress_callback callback);

CURLcode pkg_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode pkg_curl_easy_getinfo_off(CURL *easy, CURLINFO info, curl_off_t *value);
CURLcode pkg_curl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value);
CURLcode pkg_curl_easy_getinfo_private(CURL *easy, void **value);

CURLMcode pkg_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode pkg_curl_multi_setopt_ptr(CURLM *multi, CURLMoption option, const void *value);
CURLMcode pkg_curl_multi_setopt_socket_callback(CURLM *multi, pkg_curl_socket_callback callback);
CURLMcode pkg_curl_multi_setopt_timer_callback(CURLM *multi, pkg_curl_timer_callback callback);

#endif
