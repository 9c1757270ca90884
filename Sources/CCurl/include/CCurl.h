// CCurl: libcurl headers and typed wrappers for Swift. No logic lives here.
// Why a shim: curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic and do not import.
// Why a table: libcurl is opened with dlopen (eddy_curl_open) rather than linked. Linked, it and the
// libraries it needs (about forty: TLS, Kerberos, LDAP, SSH, IDN) were loaded, relocated and
// initialised before main on every start of every command: 4 ms of a 14 ms start, measured.
// `eddy serve` opens it on a thread of its own once it listens; a hit needs none of it. Every
// call below goes through the table, filled once by eddy_curl_open.
#ifndef EDDY_CCURL_H
#define EDDY_CCURL_H
#include <curl/curl.h>
#include <sys/socket.h>
#include <netinet/in.h>

struct eddy_curl_table {
    __typeof__(&curl_global_init) global_init;
    __typeof__(&curl_easy_init) easy_init;
    __typeof__(&curl_easy_cleanup) easy_cleanup;
    __typeof__(&curl_easy_setopt) easy_setopt;
    __typeof__(&curl_easy_getinfo) easy_getinfo;
    __typeof__(&curl_easy_pause) easy_pause;
    __typeof__(&curl_easy_strerror) easy_strerror;
    __typeof__(&curl_slist_append) slist_append;
    __typeof__(&curl_slist_free_all) slist_free_all;
    __typeof__(&curl_multi_init) multi_init;
    __typeof__(&curl_multi_cleanup) multi_cleanup;
    __typeof__(&curl_multi_add_handle) multi_add_handle;
    __typeof__(&curl_multi_remove_handle) multi_remove_handle;
    __typeof__(&curl_multi_setopt) multi_setopt;
    __typeof__(&curl_multi_socket_action) multi_socket_action;
    __typeof__(&curl_multi_assign) multi_assign;
    __typeof__(&curl_multi_info_read) multi_info_read;
};
extern struct eddy_curl_table eddy_curl;

/// Opens libcurl and fills the table: NULL, or dlerror's text (the table then stays empty).
/// Not thread-safe: call once, before any other function here (EddyLoop's CurlLibrary does).
const char *eddy_curl_open(void);

static inline CURLcode eddy_curl_global_init(long flags) { return eddy_curl.global_init(flags); }
static inline CURL *eddy_curl_easy_init(void) { return eddy_curl.easy_init(); }
static inline void eddy_curl_easy_cleanup(CURL *h) { eddy_curl.easy_cleanup(h); }
static inline CURLcode eddy_curl_easy_pause(CURL *h, int mask) { return eddy_curl.easy_pause(h, mask); }
static inline const char *eddy_curl_easy_strerror(CURLcode c) { return eddy_curl.easy_strerror(c); }
static inline struct curl_slist *eddy_curl_slist_append(struct curl_slist *l, const char *s) { return eddy_curl.slist_append(l, s); }
static inline void eddy_curl_slist_free_all(struct curl_slist *l) { eddy_curl.slist_free_all(l); }
static inline CURLM *eddy_curl_multi_init(void) { return eddy_curl.multi_init(); }
static inline CURLMcode eddy_curl_multi_cleanup(CURLM *m) { return eddy_curl.multi_cleanup(m); }
static inline CURLMcode eddy_curl_multi_add_handle(CURLM *m, CURL *h) { return eddy_curl.multi_add_handle(m, h); }
static inline CURLMcode eddy_curl_multi_remove_handle(CURLM *m, CURL *h) { return eddy_curl.multi_remove_handle(m, h); }
static inline CURLMcode eddy_curl_multi_socket_action(CURLM *m, curl_socket_t s, int ev, int *running) { return eddy_curl.multi_socket_action(m, s, ev, running); }
static inline CURLMcode eddy_curl_multi_assign(CURLM *m, curl_socket_t s, void *p) { return eddy_curl.multi_assign(m, s, p); }
static inline CURLMsg *eddy_curl_multi_info_read(CURLM *m, int *left) { return eddy_curl.multi_info_read(m, left); }

static inline CURLcode eddy_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return eddy_curl.easy_setopt(h, o, v); }
static inline CURLcode eddy_curl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return eddy_curl.easy_setopt(h, o, v); }
static inline CURLcode eddy_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return eddy_curl.easy_setopt(h, o, v); }
static inline CURLcode eddy_curl_easy_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return eddy_curl.easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode eddy_curl_easy_setopt_read(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return eddy_curl.easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode eddy_curl_easy_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return eddy_curl.easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLMcode eddy_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return eddy_curl.multi_setopt(m, o, v); }
static inline CURLMcode eddy_curl_multi_setopt_ptr(CURLM *m, CURLMoption o, void *v) { return eddy_curl.multi_setopt(m, o, v); }
static inline CURLMcode eddy_curl_multi_setopt_socketfn(CURLM *m, int (*f)(CURL *, curl_socket_t, int, void *, void *)) { return eddy_curl.multi_setopt(m, CURLMOPT_SOCKETFUNCTION, f); }
static inline CURLMcode eddy_curl_multi_setopt_timerfn(CURLM *m, int (*f)(CURLM *, long, void *)) { return eddy_curl.multi_setopt(m, CURLMOPT_TIMERFUNCTION, f); }
static inline CURLcode eddy_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return eddy_curl.easy_getinfo(h, i, v); }
static inline CURLcode eddy_curl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return eddy_curl.easy_getinfo(h, i, v); }
static inline CURLcode eddy_curl_easy_getinfo_str(CURL *h, CURLINFO i, char **v) { return eddy_curl.easy_getinfo(h, i, v); }
static inline CURLcode eddy_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return eddy_curl.easy_getinfo(h, i, v); }
static inline CURLcode eddy_curl_easy_setopt_opensocket(CURL *h, curl_socket_t (*f)(void *, curlsocktype, struct curl_sockaddr *)) { return eddy_curl.easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f); }
static inline CURLcode eddy_curl_easy_setopt_prereq(CURL *h, int (*f)(void *, char *, char *, int, int)) { return eddy_curl.easy_setopt(h, CURLOPT_PREREQFUNCTION, f); }
static inline CURLcode eddy_curl_easy_getinfo_socket(CURL *h, CURLINFO i, curl_socket_t *v) { return eddy_curl.easy_getinfo(h, i, v); }
static const curl_socket_t eddy_CURL_SOCKET_BAD = CURL_SOCKET_BAD;
/// CURL_WRITEFUNC_PAUSE is a macro.
static const size_t eddy_CURL_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
/* CURL_READFUNC_PAUSE and CURL_READFUNC_ABORT are macros too. */
static const size_t eddy_CURL_READFUNC_PAUSE = CURL_READFUNC_PAUSE;
static const size_t eddy_CURL_READFUNC_ABORT = CURL_READFUNC_ABORT;
#endif
