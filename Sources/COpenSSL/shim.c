#include "COpenSSL.h"
#include <dlfcn.h>
#include <pthread.h>

struct eddy_ssl_table eddy_ssl;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure = "libssl not opened";

#define EDDY_SSL_SYM(lib, field, symbol) \
    if (!(t.field = (__typeof__(t.field))dlsym(lib, #symbol))) { failure = dlerror(); return; }

static void open_once(void) {
    // libcrypto first, global to libssl (which needs it); the same libraries libcurl loads.
    void *crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!crypto) { failure = dlerror(); return; }
    void *ssl = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!ssl) { failure = dlerror(); return; }
    struct eddy_ssl_table t;
    EDDY_SSL_SYM(ssl, server_method, TLS_server_method)
    EDDY_SSL_SYM(ssl, ctx_new, SSL_CTX_new)
    EDDY_SSL_SYM(ssl, ctx_free, SSL_CTX_free)
    EDDY_SSL_SYM(ssl, ctx_up_ref, SSL_CTX_up_ref)
    EDDY_SSL_SYM(ssl, ctx_ctrl, SSL_CTX_ctrl)
    EDDY_SSL_SYM(ssl, ctx_callback_ctrl, SSL_CTX_callback_ctrl)
    EDDY_SSL_SYM(ssl, ctx_set_options, SSL_CTX_set_options)
    EDDY_SSL_SYM(ssl, ctx_set_cipher_list, SSL_CTX_set_cipher_list)
    EDDY_SSL_SYM(ssl, ctx_set_ciphersuites, SSL_CTX_set_ciphersuites)
    EDDY_SSL_SYM(ssl, ctx_use_chain_file, SSL_CTX_use_certificate_chain_file)
    EDDY_SSL_SYM(ssl, ctx_use_key_file, SSL_CTX_use_PrivateKey_file)
    EDDY_SSL_SYM(ssl, ctx_check_key, SSL_CTX_check_private_key)
    EDDY_SSL_SYM(ssl, ctx_certificate, SSL_CTX_get0_certificate)
    EDDY_SSL_SYM(ssl, ctx_set_alpn_select_cb, SSL_CTX_set_alpn_select_cb)
    EDDY_SSL_SYM(ssl, ctx_set_session_id_context, SSL_CTX_set_session_id_context)
    EDDY_SSL_SYM(ssl, select_next_proto, SSL_select_next_proto)
    EDDY_SSL_SYM(ssl, new_ssl, SSL_new)
    EDDY_SSL_SYM(ssl, free_ssl, SSL_free)
    EDDY_SSL_SYM(ssl, set_fd, SSL_set_fd)
    EDDY_SSL_SYM(ssl, set_accept_state, SSL_set_accept_state)
    EDDY_SSL_SYM(ssl, read, SSL_read)
    EDDY_SSL_SYM(ssl, write, SSL_write)
    EDDY_SSL_SYM(ssl, get_error, SSL_get_error)
    EDDY_SSL_SYM(ssl, shutdown, SSL_shutdown)
    EDDY_SSL_SYM(ssl, pending, SSL_pending)
    EDDY_SSL_SYM(ssl, get_servername, SSL_get_servername)
    EDDY_SSL_SYM(ssl, set_ctx, SSL_set_SSL_CTX)
    EDDY_SSL_SYM(ssl, alpn_selected, SSL_get0_alpn_selected)
    EDDY_SSL_SYM(ssl, get_version, SSL_get_version)
    EDDY_SSL_SYM(ssl, session_reused, SSL_session_reused)
    EDDY_SSL_SYM(ssl, init_finished, SSL_is_init_finished)
    EDDY_SSL_SYM(crypto, check_host, X509_check_host)
    EDDY_SSL_SYM(crypto, err_get, ERR_get_error)
    EDDY_SSL_SYM(crypto, err_string, ERR_error_string_n)
    EDDY_SSL_SYM(crypto, err_clear, ERR_clear_error)
    eddy_ssl = t;
    failure = NULL;
}

const char *eddy_ssl_open(void) {
    pthread_once(&once, open_once);
    return failure;
}
