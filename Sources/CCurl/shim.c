#include "CCurl.h"
#include <dlfcn.h>

struct eddy_curl_table eddy_curl;

// The soname Debian's libcurl4 (OpenSSL) installs; libcurl3-gnutls's is libcurl-gnutls.so.4.
static const char *const names[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };

#define EDDY_CURL_SYM(field, symbol) \
    if (!(t.field = (__typeof__(t.field))dlsym(lib, #symbol))) return dlerror();

const char *eddy_curl_open(void) {
    void *lib = NULL;
    for (unsigned i = 0; i < sizeof names / sizeof names[0] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) return dlerror();
    struct eddy_curl_table t;
    EDDY_CURL_SYM(global_init, curl_global_init)
    EDDY_CURL_SYM(easy_init, curl_easy_init)
    EDDY_CURL_SYM(easy_cleanup, curl_easy_cleanup)
    EDDY_CURL_SYM(easy_setopt, curl_easy_setopt)
    EDDY_CURL_SYM(easy_getinfo, curl_easy_getinfo)
    EDDY_CURL_SYM(easy_pause, curl_easy_pause)
    EDDY_CURL_SYM(easy_strerror, curl_easy_strerror)
    EDDY_CURL_SYM(slist_append, curl_slist_append)
    EDDY_CURL_SYM(slist_free_all, curl_slist_free_all)
    EDDY_CURL_SYM(multi_init, curl_multi_init)
    EDDY_CURL_SYM(multi_cleanup, curl_multi_cleanup)
    EDDY_CURL_SYM(multi_add_handle, curl_multi_add_handle)
    EDDY_CURL_SYM(multi_remove_handle, curl_multi_remove_handle)
    EDDY_CURL_SYM(multi_setopt, curl_multi_setopt)
    EDDY_CURL_SYM(multi_socket_action, curl_multi_socket_action)
    EDDY_CURL_SYM(multi_assign, curl_multi_assign)
    EDDY_CURL_SYM(multi_info_read, curl_multi_info_read)
    eddy_curl = t;
    return NULL;
}
