/* triage C API: diagnose PyTorch failures from logs, from C or any language with a C FFI.
 *
 * Usage:
 *
 *   triage_rules* rules = NULL;
 *   char* problems = NULL;
 *   triage_status st = triage_rules_load(NULL, 0, TRIAGE_LOAD_DEFAULT, &rules, &problems);
 *   if (problems) { fputs(problems, stderr); triage_string_free(problems); }
 *   if (rules == NULL) return 2;              // nothing usable (st says why)
 *
 *   char* json = NULL;
 *   char* error = NULL;
 *   if (triage_diagnose(rules, NULL, log_text, log_len, &json, &error) == TRIAGE_OK) {
 *     puts(json);                             // the JSON contract (engine/README.md)
 *     triage_string_free(json);
 *   } else {
 *     fprintf(stderr, "triage: %s\n", error);
 *     triage_string_free(error);
 *   }
 *   triage_rules_free(rules);
 *
 * Errors are values. Every function that can fail returns a triage_status; on failure it stores a
 * message in *error when `error` is not NULL (and NULL there on success). No C++ exception and no
 * abort leaves this API: bad arguments (NULL where an object is needed, a negative option) give
 * TRIAGE_INVALID_ARGUMENT, an out-of-memory condition TRIAGE_NO_MEMORY, anything unexpected inside
 * TRIAGE_INTERNAL.
 *
 * Text. Input text (logs) is bytes, normally UTF-8; invalid bytes are accepted and come out as
 * U+FFFD. File names and option strings are NUL-terminated UTF-8. Every string this API returns is
 * NUL-terminated, valid UTF-8, owned by the caller and released with triage_string_free() (not
 * free(): the library may use another allocator than the caller).
 *
 * Ownership. Each triage_*_new/load function creates an object the caller owns and releases with
 * the matching triage_*_free (NULL is accepted and ignored). A session keeps its own reference to
 * the rule set it was made with, so the rules may be freed while sessions made from them live.
 *
 * Threads. A triage_rules is immutable once loaded: any number of threads may use one at once
 * (triage_diagnose, triage_session_new). A triage_session is used by one thread at a time. An
 * object must not be freed while another thread uses it. triage_rules_load and
 * triage_rules_from_strings may run on several threads at once and while others diagnose, sharing a
 * cache directory or not; while a load runs, no other thread may change the environment (setenv),
 * the working directory (chdir) or the C locale (setlocale), which a load reads (engine/README.md
 * "Threads").
 *
 * Locale. Results do not depend on the process's locale: whatever setlocale or
 * std::locale::global the host called, numbers in the JSON and the other formats are printed with
 * '.' ("confidence":0.900), and rule scripts run in the "C" locale (engine/README.md "Threads").
 *
 * Versions. triage_version() is the library's version ("MAJOR.MINOR.PATCH");
 * triage_json_contract_version() is the version of the JSON output contract, raised only when a
 * field is renamed or removed (fields are added without a change). TRIAGE_C_API_VERSION is the
 * version of this header's functions and types.
 */
#ifndef TRIAGE_C_H_
#define TRIAGE_C_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRIAGE_C_API_VERSION 1
#define TRIAGE_JSON_CONTRACT_VERSION 1

typedef enum triage_status {
  TRIAGE_OK = 0,
  TRIAGE_INVALID_ARGUMENT = 1, /* a NULL object, a bad option value */
  TRIAGE_RULE_ERRORS = 2,      /* some rules failed to load and were left out; the rest loaded */
  TRIAGE_NO_MEMORY = 3,
  TRIAGE_INTERNAL = 4,         /* a bug in triage: please report it with the message */
  /* Not a status: makes the type as wide as int, so that any int a caller passes is a value of it
     (triage_status_name() answers "unknown" for those; C++ callers may cast any int safely). */
  TRIAGE_STATUS_INT_RANGE_ = 0x7FFFFFFF
} triage_status;

/* Returns a static name for a status ("ok", "invalid-argument", ...); "unknown" for other values. */
const char* triage_status_name(triage_status status);

/* Returns the library version, "MAJOR.MINOR.PATCH" (a static string). */
const char* triage_version(void);
/* Returns the JSON output contract's version (TRIAGE_JSON_CONTRACT_VERSION of the library). */
int triage_json_contract_version(void);

/* Releases a string returned by this API. NULL is ignored. */
void triage_string_free(char* s);

/* ---- Rules ---------------------------------------------------------------------------------- */

typedef struct triage_rules triage_rules; /* a compiled, immutable rule set */

/* Flags of triage_rules_load, or-ed together. */
enum {
  TRIAGE_LOAD_DEFAULT = 0,          /* the whole search path, then `dirs` (rules/README.md) */
  TRIAGE_LOAD_NO_BUNDLED = 1 << 0,  /* leave out the rules shipped with triage */
  TRIAGE_LOAD_ONLY_DIRS = 1 << 1,   /* leave out system, user, project and TRIAGE_RULES_PATH rules */
  TRIAGE_LOAD_STRICT = 1 << 2,      /* a rule with a warning is left out too */
  TRIAGE_LOAD_NO_CACHE = 1 << 3     /* do not read or write the on-disk rule cache */
};

/* Loads rules: the search path as the `triage` command does (subject to `flags`), then each of the
 * `n_dirs` directories or files in `dirs` (may be NULL when n_dirs is 0). On return *rules holds the
 * rule set whenever one could be built (also with TRIAGE_RULE_ERRORS: the bad rules are left out),
 * else NULL. When `problems` is not NULL it receives every loading problem, one per line
 * ("file:line:column: error: message [code]"), or NULL when there was none.
 * Returns TRIAGE_OK (no error; warnings may be in *problems), TRIAGE_RULE_ERRORS, or a failure. */
triage_status triage_rules_load(const char* const* dirs, size_t n_dirs, unsigned flags,
                                triage_rules** rules, char** problems);

/* Loads rules from memory: `n` files named names[i] holding YAML yamls[i] (NUL-terminated). No
 * search path is read; of the flags only TRIAGE_LOAD_STRICT applies. Results as triage_rules_load. */
triage_status triage_rules_from_strings(const char* const* names, const char* const* yamls, size_t n,
                                        unsigned flags, triage_rules** rules, char** problems);

/* Records where an installed triage keeps its bundled rules, for a program linked statically to it.
 * find_package(triage) defines TRIAGE_INSTALLED_RULES_DIR for the program's sources and this header
 * calls it before main (GCC and Clang); with another compiler, or without CMake, set the
 * TRIAGE_BUNDLED_RULES environment variable instead. A program linked to the shared library, or
 * the triage commands, find the rules relative to themselves and need neither. */
void triage_note_installed_rules_dir(const char* dir);
#if defined(TRIAGE_INSTALLED_RULES_DIR) && defined(__GNUC__)
__attribute__((constructor)) static void triage_note_installed_rules_dir_at_start(void) {
  triage_note_installed_rules_dir(TRIAGE_INSTALLED_RULES_DIR);
}
#endif

/* Returns how many rules a set holds (0 for NULL). */
size_t triage_rules_count(const triage_rules* rules);

void triage_rules_free(triage_rules* rules);

/* ---- Diagnosing ----------------------------------------------------------------------------- */

typedef enum triage_format {
  TRIAGE_FORMAT_JSON = 0, /* the JSON contract (engine/README.md "Output contract") */
  TRIAGE_FORMAT_TEXT = 1, /* the report the `triage` command prints, without colour */
  /* Not a format: any int is a value of the type (others are refused as TRIAGE_INVALID_ARGUMENT). */
  TRIAGE_FORMAT_INT_RANGE_ = 0x7FFFFFFF
} triage_format;

/* Who reads the report's checks and fixes (rules/README.md "C++ checks and fixes"). */
typedef enum triage_audience {
  TRIAGE_AUDIENCE_PYTHON = 0, /* a Python training script (default) */
  TRIAGE_AUDIENCE_CPP = 1,    /* a C or C++ program on LibTorch: the rules' C++ checks and fixes, advice
                                 written only for Python marked "(written for Python)", Python commands
                                 left out */
  TRIAGE_AUDIENCE_AUTO = 2,   /* the program the input shows: CPP for a LibTorch C++ program's own crash
                                 (its backtrace reaches main, nothing in it is Python's), else PYTHON */
  /* Not an audience: any int is a value of the type (others are refused as TRIAGE_INVALID_ARGUMENT). */
  TRIAGE_AUDIENCE_INT_RANGE_ = 0x7FFFFFFF
} triage_audience;

/* Options of a diagnosis. Initialise with triage_options_init(), then change fields. */
typedef struct triage_options {
  double min_confidence;    /* abstain below this, in [0, 1] (default 0.35) */
  int top;                  /* keep at most this many diagnoses; 0 keeps all (default) */
  triage_format format;     /* what the output string holds (default TRIAGE_FORMAT_JSON) */
  const char* source;       /* the input's name in the report; NULL: "-" */
  triage_audience audience; /* default TRIAGE_AUDIENCE_PYTHON */
} triage_options;

void triage_options_init(triage_options* options);

/* Diagnoses a complete log of `len` bytes (`text` may be NULL when len is 0) and stores the report
 * in *out. `options` may be NULL (defaults). A log with no PyTorch failure is not an error: the
 * report's "diagnoses" array is empty. Thread-safe for a shared `rules`. */
triage_status triage_diagnose(const triage_rules* rules, const triage_options* options, const char* text,
                              size_t len, char** out, char** error);

typedef struct triage_session triage_session; /* a log read in pieces, as it is written */

/* Starts a session over `rules` (which it keeps alive). `options` may be NULL; it is copied. */
triage_status triage_session_new(const triage_rules* rules, const triage_options* options,
                                 triage_session** session, char** error);

/* Feeds `len` bytes; a line may be split across calls. Memory stays bounded by the incidents kept. */
triage_status triage_session_feed(triage_session* session, const char* bytes, size_t len, char** error);

/* Stores in *out the report over everything fed so far (an incident still being read is ended in
 * the copy); feeding may go on. */
triage_status triage_session_snapshot(const triage_session* session, char** out, char** error);

/* Ends the input and stores the report in *out. Afterwards the session only accepts
 * triage_session_free (other calls give TRIAGE_INVALID_ARGUMENT). */
triage_status triage_session_finish(triage_session* session, char** out, char** error);

void triage_session_free(triage_session* session);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* TRIAGE_C_H_ */
