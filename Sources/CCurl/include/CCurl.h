// CCurl: libcurl headers and typed wrappers for Swift. No logic lives here.
// Why a shim: curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic and do not import.
#ifndef EDDY_CCURL_H
#define EDDY_CCURL_H
#include <curl/curl.h>
#include <sys/socket.h>
#include <netinet/in.h>

static inline CURLcode eddy_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode eddy_curl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode eddy_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode eddy_curl_easy_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode eddy_curl_easy_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLMcode eddy_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode eddy_curl_multi_setopt_ptr(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode eddy_curl_multi_setopt_socketfn(CURLM *m, int (*f)(CURL *, curl_socket_t, int, void *, void *)) { return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, f); }
static inline CURLMcode eddy_curl_multi_setopt_timerfn(CURLM *m, int (*f)(CURLM *, long, void *)) { return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, f); }
static inline CURLcode eddy_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode eddy_curl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode eddy_curl_easy_getinfo_str(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode eddy_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode eddy_curl_easy_setopt_opensocket(CURL *h, curl_socket_t (*f)(void *, curlsocktype, struct curl_sockaddr *)) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f); }
static inline CURLcode eddy_curl_easy_setopt_prereq(CURL *h, int (*f)(void *, char *, char *, int, int)) { return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, f); }
static inline CURLcode eddy_curl_easy_getinfo_socket(CURL *h, CURLINFO i, curl_socket_t *v) { return curl_easy_getinfo(h, i, v); }
static const curl_socket_t eddy_CURL_SOCKET_BAD = CURL_SOCKET_BAD;
/// CURL_WRITEFUNC_PAUSE is a macro.
static const size_t eddy_CURL_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
#endif
