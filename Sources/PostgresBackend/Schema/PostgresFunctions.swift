#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
/// The SQL functions and collations the compiled queries call, created in the store's schema
/// when it opens, so string comparisons on the server follow the query language:
///
/// - `stowage_fold(text, options)`: case (`[c]`, options bit 1) and diacritics (`[d]`, bit 2)
///   folded — Unicode lower-casing through ICU, and canonical decomposition without combining
///   marks.
/// - `stowage_like(text, pattern, options)`: `LIKE` with `*` and `?` over the whole string.
/// - `stowage_matches(text, pattern, options)`: `MATCHES`, as a whole-string PostgreSQL regular
///   expression (`~`, or `~*` for `[c]`). PostgreSQL's syntax is close to ICU's but not the same;
///   docs/postgres.md lists the differences.
/// - `stowage_lowercase(text)`, `stowage_uppercase(text)`: Unicode case mapping.
/// - Collations `stowage_case_insensitive` (ICU, case-insensitive, non-deterministic) and
///   `stowage_localized` (ICU root order), for sort descriptors' comparisons.
///
/// `CAST(…)` and `FUNCTION(…)` of column values have no server-side counterpart; fetches that use
/// them are refused with `FetchError.unsupported`.
enum PostgresFunctions {
    static func statements() -> [String] {
        [
            """
            CREATE OR REPLACE FUNCTION stowage_fold(value TEXT, options INTEGER) RETURNS TEXT
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT CASE WHEN options & 2 = 2
                THEN regexp_replace(normalize(CASE WHEN options & 1 = 1 THEN lower(value COLLATE "und-x-icu") ELSE value END, NFD), '[\\u0300-\\u036f]', '', 'g')
                ELSE CASE WHEN options & 1 = 1 THEN lower(value COLLATE "und-x-icu") ELSE value END END
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION stowage_like(value TEXT, pattern TEXT, options INTEGER) RETURNS BOOLEAN
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT stowage_fold(value, options) COLLATE "C" LIKE
                replace(replace(replace(replace(replace(stowage_fold(pattern, options), '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%'), '?', '_') COLLATE "C"
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION stowage_matches(value TEXT, pattern TEXT, options INTEGER) RETURNS BOOLEAN
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT CASE WHEN options & 1 = 1
                THEN stowage_fold(value, options & 2) ~* ('^(?:' || pattern || ')$')
                ELSE stowage_fold(value, options & 2) ~ ('^(?:' || pattern || ')$') END
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION stowage_lowercase(value TEXT) RETURNS TEXT
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT lower(value COLLATE "und-x-icu") $$
            """,
            """
            CREATE OR REPLACE FUNCTION stowage_uppercase(value TEXT) RETURNS TEXT
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT upper(value COLLATE "und-x-icu") $$
            """,
            """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'stowage_case_insensitive' AND collnamespace = current_schema()::regnamespace) THEN
                CREATE COLLATION stowage_case_insensitive (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
              END IF;
              IF NOT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'stowage_localized' AND collnamespace = current_schema()::regnamespace) THEN
                CREATE COLLATION stowage_localized (provider = icu, locale = 'und');
              END IF;
            END $$
            """,
        ]
    }
}
#endif
