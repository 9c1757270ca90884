// CLibevent: libevent 2.1 headers for Swift. No logic lives here.
// Why a shim: some libevent names are macros (evtimer_new, evsignal_new) that Swift cannot import.
#ifndef EDDY_CLIBEVENT_H
#define EDDY_CLIBEVENT_H
// System headers first, with the default feature macros: libevent's event-config.h defines
// _GNU_SOURCE, and glibc types (fd_set) seen under it differ from SwiftGlibc's, which clang
// modules reject as conflicting definitions.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <pthread.h>
#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <event2/util.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>

/// EV_* flags are plain #defines of int; re-exported as typed constants for Swift.
static const short eddy_EV_TIMEOUT = EV_TIMEOUT;
static const short eddy_EV_READ = EV_READ;
static const short eddy_EV_WRITE = EV_WRITE;
static const short eddy_EV_SIGNAL = EV_SIGNAL;
static const short eddy_EV_PERSIST = EV_PERSIST;

/// Names the calling thread (shown by top -H and perf). glibc declares it only under _GNU_SOURCE,
/// which this header must not define (see above).
extern int pthread_setname_np(pthread_t thread, const char *name);
static inline void eddy_name_thread(const char *name) { pthread_setname_np(pthread_self(), name); }
#endif
