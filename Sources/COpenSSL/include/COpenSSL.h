// COpenSSL: the OpenSSL calls eddy's TLS listeners make, opened at run time. No logic lives here.
// Why dlopen, as CCurl and CLibXML2: linked, libssl and libcrypto are loaded and relocated on every
// start of every command, and only a TLS listener needs them. eddy opens them (eddy_ssl_open,
// once, thread-safe) when a TLS listener is configured; every call below goes through the table.
// Why wrappers: SSL_CTX_set_min_proto_version, SSL_CTX_set_mode and the SNI setters are macros
// over SSL_CTX_ctrl and SSL_CTX_callback_ctrl, which Swift does not import.
#ifndef EDDY_COPENSSL_H
#define EDDY_COPENSSL_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

struct eddy_ssl_table {
    __typeof__(&TLS_server_method) server_method;
    __typeof__(&SSL_CTX_new) ctx_new;
    __typeof__(&SSL_CTX_free) ctx_free;
    __typeof__(&SSL_CTX_up_ref) ctx_up_ref;
    __typeof__(&SSL_CTX_ctrl) ctx_ctrl;
    __typeof__(&SSL_CTX_callback_ctrl) ctx_callback_ctrl;
    __typeof__(&SSL_CTX_set_options) ctx_set_options;
    __typeof__(&SSL_CTX_set_cipher_list) ctx_set_cipher_list;
    __typeof__(&SSL_CTX_set_ciphersuites) ctx_set_ciphersuites;
    __typeof__(&SSL_CTX_use_certificate_chain_file) ctx_use_chain_file;
    __typeof__(&SSL_CTX_use_PrivateKey_file) ctx_use_key_file;
    __typeof__(&SSL_CTX_check_private_key) ctx_check_key;
    __typeof__(&SSL_CTX_get0_certificate) ctx_certificate;
    __typeof__(&SSL_CTX_set_alpn_select_cb) ctx_set_alpn_select_cb;
    __typeof__(&SSL_CTX_set_session_id_context) ctx_set_session_id_context;
    __typeof__(&SSL_select_next_proto) select_next_proto;
    __typeof__(&SSL_new) new_ssl;
    __typeof__(&SSL_free) free_ssl;
    __typeof__(&SSL_set_fd) set_fd;
    __typeof__(&SSL_set_accept_state) set_accept_state;
    __typeof__(&SSL_read) read;
    __typeof__(&SSL_write) write;
    __typeof__(&SSL_get_error) get_error;
    __typeof__(&SSL_shutdown) shutdown;
    __typeof__(&SSL_pending) pending;
    __typeof__(&SSL_get_servername) get_servername;
    __typeof__(&SSL_set_SSL_CTX) set_ctx;
    __typeof__(&SSL_get0_alpn_selected) alpn_selected;
    __typeof__(&SSL_get_version) get_version;
    __typeof__(&SSL_session_reused) session_reused;
    __typeof__(&SSL_is_init_finished) init_finished;
    __typeof__(&X509_check_host) check_host;
    __typeof__(&ERR_get_error) err_get;
    __typeof__(&ERR_error_string_n) err_string;
    __typeof__(&ERR_clear_error) err_clear;
};
extern struct eddy_ssl_table eddy_ssl;

/// Opens libssl and fills `eddy_ssl` the first time; NULL when ready, else why not. Thread-safe.
const char *eddy_ssl_open(void);

/// The SNI callback's signature (RFC 6066 section 3), as Swift declares it.
typedef int (*eddy_servername_cb)(SSL *ssl, int *alert, void *arg);

// SSL_OP_* are SSL_OP_BIT(n) expressions, which Swift does not import.
static const uint64_t eddy_SSL_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;
static const uint64_t eddy_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const uint64_t eddy_SSL_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;
static const uint64_t eddy_SSL_OP_IGNORE_UNEXPECTED_EOF = SSL_OP_IGNORE_UNEXPECTED_EOF;

static inline long eddy_ssl_ctx_set_versions(SSL_CTX *ctx, int min, int max) {
    long a = eddy_ssl.ctx_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, min, NULL);
    long b = eddy_ssl.ctx_ctrl(ctx, SSL_CTRL_SET_MAX_PROTO_VERSION, max, NULL);
    return a && b;
}
static inline long eddy_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
    return eddy_ssl.ctx_ctrl(ctx, SSL_CTRL_MODE, mode, NULL);
}
static inline long eddy_ssl_ctx_set_session_cache(SSL_CTX *ctx, long mode, long size) {
    eddy_ssl.ctx_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_SIZE, size, NULL);
    return eddy_ssl.ctx_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_MODE, mode, NULL);
}
static inline long eddy_ssl_ctx_set_servername(SSL_CTX *ctx, eddy_servername_cb cb, void *arg) {
    eddy_ssl.ctx_ctrl(ctx, SSL_CTRL_SET_TLSEXT_SERVERNAME_ARG, 0, arg);
    return eddy_ssl.ctx_callback_ctrl(ctx, SSL_CTRL_SET_TLSEXT_SERVERNAME_CB, (void (*)(void))cb);
}
#endif
