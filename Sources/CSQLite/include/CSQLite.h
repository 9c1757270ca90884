// CSQLite: the system SQLite (Debian libsqlite3-dev). No logic lives here.
// Why a shim: SQLITE_TRANSIENT is a macro casting -1 to a function pointer.
#ifndef EDDY_CSQLITE_H
#define EDDY_CSQLITE_H
#include <sqlite3.h>
static inline int eddy_sqlite3_bind_text_transient(sqlite3_stmt *s, int i, const char *t) { return sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT); }
static inline int eddy_sqlite3_bind_blob_transient(sqlite3_stmt *s, int i, const void *b, int n) { return sqlite3_bind_blob(s, i, b, n, SQLITE_TRANSIENT); }
#endif
