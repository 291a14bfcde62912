#include "CCurl.h"

CURLcode pkg_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

CURLcode pkg_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode pkg_curl_easy_setopt_ptr(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode pkg_curl_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode pkg_curl_easy_setopt_data_callback(CURL *easy, CURLoption option, pkg_curl_data_callback callback) {
    return curl_easy_setopt(easy, option, callback);
}

CURLcode pkg_curl_easy_setopt_progress_callback(CURL *easy, pkg_curl_progress_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode pkg_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode pkg_curl_easy_getinfo_off(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode pkg_curl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode pkg_curl_easy_getinfo_private(CURL *easy, void **value) {
    return curl_easy_getinfo(easy, CURLINFO_PRIVATE, value);
}

CURLMcode pkg_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLMcode pkg_curl_multi_setopt_ptr(CURLM *multi, CURLMoption option, const void *value) {
    return curl_multi_setopt(multi, option, value);
}

CURLMcode pkg_curl_multi_setopt_socket_callback(CURLM *multi, pkg_curl_socket_callback callback) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
}

CURLMcode pkg_curl_multi_setopt_timer_callback(CURLM *multi, pkg_curl_timer_callback callback) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback);
}
