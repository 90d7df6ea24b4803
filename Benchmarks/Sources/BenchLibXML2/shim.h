#ifndef STOWAGE_BENCH_LIBXML2_SHIM_H
#define STOWAGE_BENCH_LIBXML2_SHIM_H

/* libxml2 for the `libxml2-reader` baseline. As in the root package's CXML, libxml2's optional
   ICU converters are left out: their headers clash with the ICU copy Foundation brings. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>

#endif
