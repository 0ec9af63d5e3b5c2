#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed entry
// point per kind of value.
static inline CURLcode vibes_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode vibes_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode vibes_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode vibes_curl_setopt_write(CURL *handle, CURLoption option,
                                               size_t (*function)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, function);
}
static inline CURLcode vibes_curl_setopt_progress(CURL *handle,
                                                  int (*function)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
}
static inline CURLcode vibes_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
