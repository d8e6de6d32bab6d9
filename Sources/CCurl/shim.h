// libcurl, the HTTP client (Debian's libcurl4-openssl-dev for these headers, libcurl4 at
// run time), for loctrack's Traccar uplink. Only Sources/LocTrackTraccar/Curl imports this
// module; the rest of loctrack calls the wrappers there.
//
// Headers only: the module map has no `link`, and Package.swift no pkgConfig, because a
// linked libcurl costs every `loctrack` start about 30 more shared objects, 5 ms and 4.5 MB
// of memory (docs/performance.md, "libcurl"). The uplink loads libcurl.so.4 with dlopen when
// it starts (LocTrackSystem's SharedLibrary), looks up the functions below with dlsym, and
// hands their addresses here in a `loctrack_curl_api`; each wrapper casts its address to
// the function's prototype from <curl/curl.h> and calls it.
//
// Swift cannot call C's variadic functions (curl_easy_setopt, curl_easy_getinfo), nor
// call through a pointer to one: the wrappers are typed, one per kind of argument, so the
// variadic calls are made here, in C, with the argument type libcurl reads for the option.
#ifndef LOCTRACK_CURL_SHIM_H
#define LOCTRACK_CURL_SHIM_H

#include <curl/curl.h>

// The addresses of the libcurl functions loctrack calls, as dlsym returned them.
typedef struct loctrack_curl_api {
    void *global_init;
    void *easy_init;
    void *easy_cleanup;
    void *easy_setopt;
    void *easy_perform;
    void *easy_getinfo;
    void *easy_strerror;
} loctrack_curl_api;

// CURL_GLOBAL_DEFAULT is a macro over two others, which Swift does not import.
static const long loctrack_curl_global_default = CURL_GLOBAL_DEFAULT;
// CURL_ERROR_SIZE: the size of the buffer CURLOPT_ERRORBUFFER fills.
static const int loctrack_curl_error_size = CURL_ERROR_SIZE;

// curl_global_init(3): once per process, before any other call.
static inline CURLcode loctrack_curl_global_init(const loctrack_curl_api *api, long flags) {
    return ((CURLcode (*)(long))api->global_init)(flags);
}

// curl_easy_init(3): a handle, with its connection cache; NULL when out of memory.
static inline CURL *loctrack_curl_easy_init(const loctrack_curl_api *api) {
    return ((CURL *(*)(void))api->easy_init)();
}

// curl_easy_cleanup(3): closes the handle's connections and frees it.
static inline void loctrack_curl_easy_cleanup(const loctrack_curl_api *api, CURL *handle) {
    ((void (*)(CURL *))api->easy_cleanup)(handle);
}

// curl_easy_setopt(3) for the options that take a long.
static inline CURLcode loctrack_curl_easy_setopt_long(const loctrack_curl_api *api, CURL *handle, CURLoption option, long value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, option, value);
}

// curl_easy_setopt(3) for the options that take a string (libcurl copies it) or a
// pointer (the error buffer, a callback's data), which must outlive the handle's use.
static inline CURLcode loctrack_curl_easy_setopt_pointer(const loctrack_curl_api *api, CURL *handle, CURLoption option, const void *value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, option, value);
}

// curl_easy_setopt(3) with CURLOPT_WRITEFUNCTION: what receives the reply's body.
static inline CURLcode loctrack_curl_easy_setopt_write_function(const loctrack_curl_api *api, CURL *handle, curl_write_callback function) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, CURLOPT_WRITEFUNCTION, function);
}

// curl_easy_setopt(3) with CURLOPT_XFERINFOFUNCTION: called about once a second or more
// during a transfer; a non-zero return aborts it.
static inline CURLcode loctrack_curl_easy_setopt_progress_function(const loctrack_curl_api *api, CURL *handle, curl_xferinfo_callback function) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, CURLOPT_XFERINFOFUNCTION, function);
}

// curl_easy_perform(3): the transfer, blocking until it ends.
static inline CURLcode loctrack_curl_easy_perform(const loctrack_curl_api *api, CURL *handle) {
    return ((CURLcode (*)(CURL *))api->easy_perform)(handle);
}

// curl_easy_getinfo(3) for the items that are a long (CURLINFO_RESPONSE_CODE,
// CURLINFO_REQUEST_SIZE).
static inline CURLcode loctrack_curl_easy_getinfo_long(const loctrack_curl_api *api, CURL *handle, CURLINFO item, long *value) {
    return ((CURLcode (*)(CURL *, CURLINFO, ...))api->easy_getinfo)(handle, item, value);
}

// curl_easy_strerror(3): a code's text, static.
static inline const char *loctrack_curl_easy_strerror(const loctrack_curl_api *api, CURLcode code) {
    return ((const char *(*)(CURLcode))api->easy_strerror)(code);
}

#endif
