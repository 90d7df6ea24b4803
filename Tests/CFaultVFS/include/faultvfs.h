#ifndef STOWAGE_FAULTVFS_H
#define STOWAGE_FAULTVFS_H

/// A SQLite VFS for tests that wraps the default one and injects I/O faults into files whose path
/// starts with a prefix: the Nth counted call (a write, sync, truncate or lock) fails with a given
/// result code, or a power cut is simulated at it — every write not yet synced is undone and
/// every later write, sync or truncate fails, as if the machine had stopped.

/// What happens at the chosen call.
typedef enum {
    STOWAGE_FAULT_NONE = 0,
    /// The call fails with the given code, once. `SQLITE_FULL` on a write writes half the bytes
    /// first (a short write).
    STOWAGE_FAULT_FAIL = 1,
    /// Unsynced writes are undone, and this and every later write, sync and truncate fail.
    STOWAGE_FAULT_POWER_CUT = 2,
} stowage_fault_mode;

/// The kinds of counted calls, as recorded by `stowage_faultvfs_call_kind`.
typedef enum {
    STOWAGE_CALL_WRITE = 1,
    STOWAGE_CALL_SYNC = 2,
    STOWAGE_CALL_TRUNCATE = 3,
    STOWAGE_CALL_LOCK = 4,
} stowage_call_kind;

/// Registers the VFS (named "stowage-fault") as the default; returns a SQLite result code.
int stowage_faultvfs_install(void);
/// Makes the VFS SQLite had before the default again (connections already open keep theirs).
void stowage_faultvfs_uninstall(void);
/// Starts counting calls on files under `prefix` from zero; at call `at` (1-based), does `mode`
/// (with `code` for a failure). `at` 0 only counts.
void stowage_faultvfs_arm(const char *prefix, int at, stowage_fault_mode mode, int code);
/// Stops injecting; counting ends too.
void stowage_faultvfs_disarm(void);
/// How many calls were counted since the last `arm`.
int stowage_faultvfs_calls(void);
/// The kind of counted call `index` (1-based; the first 4,096 are kept), or 0.
int stowage_faultvfs_call_kind(int index);
/// Simulates a power cut now, on the files under the armed prefix: every write since a file's
/// last sync is undone, and later writes, syncs and truncates fail until `arm` or `disarm`.
void stowage_faultvfs_cut_now(void);
/// Whether a power cut happened since the last `arm`.
int stowage_faultvfs_did_cut(void);

#endif
