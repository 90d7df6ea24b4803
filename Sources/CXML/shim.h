#ifndef STOWAGE_CXML_SHIM_H
#define STOWAGE_CXML_SHIM_H

#include <libxml/xmlversion.h>
/* libxml2's encoding.h includes ICU's headers when libxml2 was built with ICU; those clash with
   the ICU copy Foundation brings. Stowage never touches libxml2's converters, so leave them out
   (the only difference is two trailing pointer fields of xmlCharEncodingHandler). */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>
#include <libxml/xmlIO.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>
#include <libxml/globals.h>
#include <locale.h>

/// The C locale (`LC_ALL_MASK` is a macro Swift cannot import), for locale-independent number parsing.
static inline locale_t stowage_c_locale(void) {
    return newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/// `xmlFree` is a global function pointer Swift cannot call directly.
static inline void stowage_xml_free(void *pointer) {
    xmlFree(pointer);
}

/// A generic (printf-style) error handler that prints nothing: Swift cannot define variadic C functions.
static void stowage_xml_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

/// The calling thread's libxml2 error handlers, saved while a reader or writer runs.
typedef struct {
    void *genericContext;
    void *genericFunction;
    void *structuredContext;
    void *structuredFunction;
} stowage_xml_error_handlers;

/// Saves the calling thread's libxml2 error handlers into `saved` and installs handlers that
/// print nothing, so no libxml2 message reaches stderr (libxml2 keeps them per thread).
static inline void stowage_xml_silence_errors(stowage_xml_error_handlers *saved) {
    saved->genericContext = xmlGenericErrorContext;
    saved->genericFunction = (void *)xmlGenericError;
    saved->structuredContext = xmlStructuredErrorContext;
    saved->structuredFunction = (void *)xmlStructuredError;
    xmlSetGenericErrorFunc(NULL, stowage_xml_ignore_generic_error);
    xmlSetStructuredErrorFunc(NULL, NULL);
}

/// Restores the handlers `stowage_xml_silence_errors` saved.
static inline void stowage_xml_restore_errors(const stowage_xml_error_handlers *saved) {
    xmlSetGenericErrorFunc(saved->genericContext, (xmlGenericErrorFunc)saved->genericFunction);
    xmlSetStructuredErrorFunc(saved->structuredContext, (xmlStructuredErrorFunc)saved->structuredFunction);
}

#endif
