// The one function that needs http_struct.h, kept out of the Swift-visible header so that
// evhttp_request stays an opaque type in Swift.
#include "CLibevent.h"
#include <event2/http_struct.h>

void eddy_evhttp_request_version(struct evhttp_request *req, char *major, char *minor) {
    *major = req->major;
    *minor = req->minor;
}
