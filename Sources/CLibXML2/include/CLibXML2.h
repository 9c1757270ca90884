// CLibXML2: libxml2's tree API for Swift, opened at run time. No logic lives here.
// Why dlopen, as CCurl: linked, libxml2 brings ICU (libicuuc, 30 MB of libicudata) into every
// start of every command, and only an MPD needs it. The first MPD opens it (eddy_xml_open, once,
// thread-safe); every call below goes through the table.
#ifndef EDDY_CLIBXML2_H
#define EDDY_CLIBXML2_H
#include <libxml/parser.h>
#include <libxml/tree.h>

struct eddy_xml_table {
    __typeof__(&xmlReadMemory) read_memory;
    __typeof__(&xmlFreeDoc) free_doc;
    __typeof__(&xmlDocGetRootElement) root_element;
    __typeof__(&xmlDocDumpMemory) dump_memory;
    __typeof__(&xmlNodeGetContent) get_content;
    __typeof__(&xmlNodeSetContent) set_content;
    __typeof__(&xmlUnlinkNode) unlink_node;
    __typeof__(&xmlFreeNode) free_node;
    __typeof__(&xmlGetProp) get_prop;
    __typeof__(&xmlSetProp) set_prop;
    xmlFreeFunc *free_func;
};
extern struct eddy_xml_table eddy_xml;

/// Opens libxml2 and fills `eddy_xml` the first time; NULL when ready, else why not. Thread-safe.
const char *eddy_xml_open(void);

/// Frees memory libxml2 allocated (its `xmlFree`, a variable, which Swift cannot call through).
static inline void eddy_xml_free(void *p) { (*eddy_xml.free_func)(p); }
#endif
