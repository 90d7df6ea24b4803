#ifndef STOWAGE_CSQLITE_SHIM_H
#define STOWAGE_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: SQLite copies the bound bytes.
static inline sqlite3_destructor_type stowage_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// SQLITE_STATIC: the bound bytes outlive the statement step (SQLite does not copy them).
static inline sqlite3_destructor_type stowage_sqlite_static(void) {
    return SQLITE_STATIC;
}

#endif
