#include "faultvfs.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* One region of a file overwritten since the file was last synced, with the bytes it held. */
typedef struct Undo {
    sqlite3_int64 offset;
    int length;
    unsigned char *bytes;
    struct Undo *next;
} Undo;

typedef struct FaultFile {
    sqlite3_file base;            /* must come first */
    sqlite3_file *real;           /* the wrapped VFS's file, allocated after this struct */
    const char *name;             /* valid until xClose, as SQLite promises */
    int watched;                  /* the path is under the prefix */
    sqlite3_int64 syncedSize;     /* the size at the last sync (or when opened) */
    Undo *undo;                   /* newest first */
    struct FaultFile *nextOpen;
} FaultFile;

static sqlite3_vfs faultVFS;
static sqlite3_vfs *realVFS;
static sqlite3_vfs *previousDefault;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char prefix[4096];
static int armed, target, calls, cut, failCode;
static stowage_fault_mode mode;
static unsigned char kinds[4096];
static FaultFile *openFiles;

static void clearUndo(FaultFile *file) {
    while (file->undo) {
        Undo *next = file->undo->next;
        free(file->undo->bytes);
        free(file->undo);
        file->undo = next;
    }
}

/* Undoes every unsynced write of every watched file (the caller holds the lock). */
static void powerCut(void) {
    for (FaultFile *file = openFiles; file; file = file->nextOpen) {
        if (!file->watched) continue;
        for (Undo *undo = file->undo; undo; undo = undo->next) {
            file->real->pMethods->xWrite(file->real, undo->bytes, undo->length, undo->offset);
        }
        clearUndo(file);
        file->real->pMethods->xTruncate(file->real, file->syncedSize);
        file->real->pMethods->xSync(file->real, SQLITE_SYNC_NORMAL);
    }
    cut = 1;
}

/* Counts a call on a watched file; returns 0 to make it, or the result code to fail it with.
   `*shortWrite` is set for a failing write that should write half its bytes first. */
static int decide(FaultFile *file, stowage_call_kind kind, int *shortWrite) {
    int result = 0;
    if (shortWrite) *shortWrite = 0;
    pthread_mutex_lock(&lock);
    if (armed && file->watched) {
        if (cut && kind != STOWAGE_CALL_LOCK) {
            result = SQLITE_IOERR;
        } else {
            calls += 1;
            if (calls <= (int)sizeof(kinds)) kinds[calls - 1] = (unsigned char)kind;
            if (calls == target && mode == STOWAGE_FAULT_FAIL) {
                result = failCode;
                if (shortWrite && kind == STOWAGE_CALL_WRITE && (failCode & 0xff) == SQLITE_FULL) *shortWrite = 1;
            } else if (calls == target && mode == STOWAGE_FAULT_POWER_CUT) {
                powerCut();
                result = kind == STOWAGE_CALL_LOCK ? 0 : SQLITE_IOERR;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return result;
}

static int fClose(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    pthread_mutex_lock(&lock);
    for (FaultFile **link = &openFiles; *link; link = &(*link)->nextOpen) {
        if (*link == file) { *link = file->nextOpen; break; }
    }
    clearUndo(file);
    pthread_mutex_unlock(&lock);
    return file->real->pMethods->xClose(file->real);
}

static int fRead(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xRead(file->real, buffer, amount, offset);
}

static int fWrite(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    int shortWrite = 0;
    int code = decide(file, STOWAGE_CALL_WRITE, &shortWrite);
    if (code) {
        if (shortWrite) file->real->pMethods->xWrite(file->real, buffer, amount / 2, offset);
        return code;
    }
    if (file->watched && offset < file->syncedSize) {
        /* (Writes of a file come through one connection's handle at a time, so its own list
           holds them; a sync through any handle clears every handle's list.) */
        /* Keep what the synced part of the file held here, to undo at a power cut. */
        int length = (int)((offset + amount <= file->syncedSize) ? amount : file->syncedSize - offset);
        Undo *undo = malloc(sizeof(Undo));
        unsigned char *bytes = malloc((size_t)length);
        if (undo && bytes) {
            memset(bytes, 0, (size_t)length);
            file->real->pMethods->xRead(file->real, bytes, length, offset);
            undo->offset = offset;
            undo->length = length;
            undo->bytes = bytes;
            pthread_mutex_lock(&lock);
            undo->next = file->undo;
            file->undo = undo;
            pthread_mutex_unlock(&lock);
        } else {
            free(undo);
            free(bytes);
        }
    }
    return file->real->pMethods->xWrite(file->real, buffer, amount, offset);
}

static int fTruncate(sqlite3_file *f, sqlite3_int64 size) {
    FaultFile *file = (FaultFile *)f;
    int code = decide(file, STOWAGE_CALL_TRUNCATE, NULL);
    if (code) return code;
    /* A truncation below the synced size is not undone: SQLite syncs around its truncations. */
    return file->real->pMethods->xTruncate(file->real, size);
}

static int fSync(sqlite3_file *f, int flags) {
    FaultFile *file = (FaultFile *)f;
    int code = decide(file, STOWAGE_CALL_SYNC, NULL);
    if (code) return code;
    int result = file->real->pMethods->xSync(file->real, flags);
    if (result == SQLITE_OK) {
        /* A sync makes the whole file durable, whichever connection's handle it went through
           (several connections open the same database and WAL). */
        sqlite3_int64 size = 0;
        file->real->pMethods->xFileSize(file->real, &size);
        pthread_mutex_lock(&lock);
        for (FaultFile *other = openFiles; other; other = other->nextOpen) {
            if (other == file || (other->name && file->name && strcmp(other->name, file->name) == 0)) {
                clearUndo(other);
                other->syncedSize = size;
            }
        }
        pthread_mutex_unlock(&lock);
    }
    return result;
}

static int fFileSize(sqlite3_file *f, sqlite3_int64 *size) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int fLock(sqlite3_file *f, int level) {
    FaultFile *file = (FaultFile *)f;
    int code = decide(file, STOWAGE_CALL_LOCK, NULL);
    if (code) return code;
    return file->real->pMethods->xLock(file->real, level);
}

static int fUnlock(sqlite3_file *f, int level) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int fCheckReservedLock(sqlite3_file *f, int *result) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int fFileControl(sqlite3_file *f, int op, void *argument) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int fSectorSize(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xSectorSize(file->real);
}

static int fDeviceCharacteristics(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int fShmMap(sqlite3_file *f, int page, int size, int extend, void volatile **memory) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xShmMap(file->real, page, size, extend, memory);
}

static int fShmLock(sqlite3_file *f, int offset, int count, int flags) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void fShmBarrier(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    file->real->pMethods->xShmBarrier(file->real);
}

static int fShmUnmap(sqlite3_file *f, int deleteFlag) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static const sqlite3_io_methods faultMethods = {
    2, fClose, fRead, fWrite, fTruncate, fSync, fFileSize, fLock, fUnlock, fCheckReservedLock,
    fFileControl, fSectorSize, fDeviceCharacteristics, fShmMap, fShmLock, fShmBarrier, fShmUnmap,
    NULL, NULL,
};

static int vOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *file = (FaultFile *)f;
    memset(file, 0, sizeof(FaultFile));
    file->real = (sqlite3_file *)(file + 1);
    int result = realVFS->xOpen(realVFS, name, file->real, flags, outFlags);
    if (result != SQLITE_OK) {
        file->base.pMethods = NULL;
        return result;
    }
    file->base.pMethods = &faultMethods;
    pthread_mutex_lock(&lock);
    file->name = name;
    file->watched = name && prefix[0] && strncmp(name, prefix, strlen(prefix)) == 0;
    file->nextOpen = openFiles;
    openFiles = file;
    pthread_mutex_unlock(&lock);
    file->real->pMethods->xFileSize(file->real, &file->syncedSize);
    return SQLITE_OK;
}

static int vDelete(sqlite3_vfs *vfs, const char *name, int syncDir) {
    (void)vfs;
    return realVFS->xDelete(realVFS, name, syncDir);
}

static int vAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return realVFS->xAccess(realVFS, name, flags, result);
}

static int vFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return realVFS->xFullPathname(realVFS, name, size, out);
}

static void *vDlOpen(sqlite3_vfs *vfs, const char *name) { (void)vfs; return realVFS->xDlOpen(realVFS, name); }
static void vDlError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; realVFS->xDlError(realVFS, size, out); }
static void (*vDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) { (void)vfs; return realVFS->xDlSym(realVFS, handle, symbol); }
static void vDlClose(sqlite3_vfs *vfs, void *handle) { (void)vfs; realVFS->xDlClose(realVFS, handle); }
static int vRandomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return realVFS->xRandomness(realVFS, size, out); }
static int vSleep(sqlite3_vfs *vfs, int micros) { (void)vfs; return realVFS->xSleep(realVFS, micros); }
static int vCurrentTime(sqlite3_vfs *vfs, double *out) { (void)vfs; return realVFS->xCurrentTime(realVFS, out); }
static int vGetLastError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return realVFS->xGetLastError(realVFS, size, out); }
static int vCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) { (void)vfs; return realVFS->xCurrentTimeInt64(realVFS, out); }

int stowage_faultvfs_install(void) {
    pthread_mutex_lock(&lock);
    if (!realVFS) {
        realVFS = sqlite3_vfs_find("unix");
        if (!realVFS) { pthread_mutex_unlock(&lock); return SQLITE_ERROR; }
        memset(&faultVFS, 0, sizeof(faultVFS));
        faultVFS.iVersion = 2;
        faultVFS.szOsFile = (int)sizeof(FaultFile) + realVFS->szOsFile;
        faultVFS.mxPathname = realVFS->mxPathname;
        faultVFS.zName = "stowage-fault";
        faultVFS.xOpen = vOpen;
        faultVFS.xDelete = vDelete;
        faultVFS.xAccess = vAccess;
        faultVFS.xFullPathname = vFullPathname;
        faultVFS.xDlOpen = vDlOpen;
        faultVFS.xDlError = vDlError;
        faultVFS.xDlSym = vDlSym;
        faultVFS.xDlClose = vDlClose;
        faultVFS.xRandomness = vRandomness;
        faultVFS.xSleep = vSleep;
        faultVFS.xCurrentTime = vCurrentTime;
        faultVFS.xGetLastError = vGetLastError;
        faultVFS.xCurrentTimeInt64 = vCurrentTimeInt64;
    }
    previousDefault = sqlite3_vfs_find(NULL);
    pthread_mutex_unlock(&lock);
    return sqlite3_vfs_register(&faultVFS, 1);
}

void stowage_faultvfs_uninstall(void) {
    if (previousDefault && previousDefault != &faultVFS) sqlite3_vfs_register(previousDefault, 1);
    else if (realVFS) sqlite3_vfs_register(realVFS, 1);
}

void stowage_faultvfs_arm(const char *path, int at, stowage_fault_mode faultMode, int code) {
    pthread_mutex_lock(&lock);
    strncpy(prefix, path ? path : "", sizeof(prefix) - 1);
    prefix[sizeof(prefix) - 1] = 0;
    /* Files opened before arming are judged again under the new prefix; what they hold now
       counts as synced (the saves that wrote it synced it). */
    for (FaultFile *file = openFiles; file; file = file->nextOpen) {
        file->watched = file->name && prefix[0] && strncmp(file->name, prefix, strlen(prefix)) == 0;
        clearUndo(file);
        file->real->pMethods->xFileSize(file->real, &file->syncedSize);
    }
    armed = 1;
    target = at;
    mode = faultMode;
    failCode = code;
    calls = 0;
    cut = 0;
    memset(kinds, 0, sizeof(kinds));
    pthread_mutex_unlock(&lock);
}

void stowage_faultvfs_disarm(void) {
    pthread_mutex_lock(&lock);
    armed = 0;
    cut = 0;
    target = 0;
    mode = STOWAGE_FAULT_NONE;
    pthread_mutex_unlock(&lock);
}

int stowage_faultvfs_calls(void) {
    pthread_mutex_lock(&lock);
    int result = calls;
    pthread_mutex_unlock(&lock);
    return result;
}

int stowage_faultvfs_call_kind(int index) {
    pthread_mutex_lock(&lock);
    int result = (index >= 1 && index <= (int)sizeof(kinds)) ? kinds[index - 1] : 0;
    pthread_mutex_unlock(&lock);
    return result;
}

void stowage_faultvfs_cut_now(void) {
    pthread_mutex_lock(&lock);
    if (armed) powerCut();
    pthread_mutex_unlock(&lock);
}

int stowage_faultvfs_did_cut(void) {
    pthread_mutex_lock(&lock);
    int result = cut;
    pthread_mutex_unlock(&lock);
    return result;
}
