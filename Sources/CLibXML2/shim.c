#include "CLibXML2.h"
#include <dlfcn.h>
#include <pthread.h>

struct eddy_xml_table eddy_xml;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure = "libxml2 not opened";

#define EDDY_XML_SYM(field, symbol) \
    if (!(t.field = (__typeof__(t.field))dlsym(lib, #symbol))) { failure = dlerror(); return; }

static void open_once(void) {
    void *lib = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { failure = dlerror(); return; }
    struct eddy_xml_table t;
    void (*init)(void) = (void (*)(void))dlsym(lib, "xmlInitParser");
    if (!init) { failure = dlerror(); return; }
    EDDY_XML_SYM(read_memory, xmlReadMemory)
    EDDY_XML_SYM(free_doc, xmlFreeDoc)
    EDDY_XML_SYM(root_element, xmlDocGetRootElement)
    EDDY_XML_SYM(dump_memory, xmlDocDumpMemory)
    EDDY_XML_SYM(get_content, xmlNodeGetContent)
    EDDY_XML_SYM(set_content, xmlNodeSetContent)
    EDDY_XML_SYM(unlink_node, xmlUnlinkNode)
    EDDY_XML_SYM(free_node, xmlFreeNode)
    EDDY_XML_SYM(get_prop, xmlGetProp)
    EDDY_XML_SYM(set_prop, xmlSetProp)
    EDDY_XML_SYM(free_func, xmlFree)
    init(); // libxml2 2.9 asks for it once before threads parse
    eddy_xml = t;
    failure = NULL;
}

const char *eddy_xml_open(void) {
    pthread_once(&once, open_once);
    return failure;
}
