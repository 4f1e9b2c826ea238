/* workload.h: which program a command runs, and the workload manifest.
 *
 * Every command that takes `[-- PROGRAM ARGS]` resolves its program here:
 * either the arguments given after `--`, or an entry of the workload
 * manifest (bench/workloads/manifest). A manifest line is
 *
 *     NAME TAGS COMMAND...
 *
 * whitespace separated; a token starting with `#` starts a comment that runs
 * to the end of the line. TAGS is a comma list from {default, short, full, extra},
 * or `-` for none; exactly one entry of a manifest is tagged `default`. In
 * COMMAND, `{W}` stands for the workload directory: $ICOST_WORKLOADS if set,
 * else ICOST_SOURCE_DIR "/build/workloads" (where bench/workloads/build.sh
 * puts the built programs and their inputs). */
#ifndef IC_CLI_WORKLOAD_H
#define IC_CLI_WORKLOAD_H

#include <stddef.h>

#include "ic_err.h"

/* A program to run: argv[0..argc-1] and a NULL at argv[argc], all owned by
 * the struct; name is the manifest name, or the basename of argv[0] when the
 * program was given on the command line. */
typedef struct cli_workload {
  int argc;
  char **argv;
  char *name;
} cli_workload;

/* Resolves the program to run: if argc > 0, argv is PROGRAM ARGS as given;
   otherwise the manifest entry tagged `default` (or `name` when non-NULL, for
   --workload NAME), with {W} replaced by the workload directory:
   $ICOST_WORKLOADS if set, else ICOST_SOURCE_DIR "/build/workloads". Fills
   *out (argv NULL-terminated, owned by out). A manifest program that has not
   been built is an IC_EINPUT error that says how to build it.
   Time complexity: O(size of the manifest). */
ic_status cli_workload_resolve(cli_workload *out, const char *name, int argc, char **argv,
                               ic_err *err);

/* As cli_workload_resolve, with an explicit manifest file and workload
   directory (NULL: the defaults above), and no check that the program exists.
   Time complexity: O(size of the manifest). */
ic_status cli_workload_resolve_from(cli_workload *out, const char *manifest, const char *wdir,
                                    const char *name, int argc, char **argv, ic_err *err);

/* All entries with a tag (e.g. "short", "full"; NULL: every entry) of a
   manifest file (NULL: the default one), in file order, {W} replaced by the
   workload directory. *out is an array of *n workloads; release it with
   cli_workload_list_free. Time complexity: O(size of the manifest). */
ic_status cli_workload_list(const char *manifest, const char *tag, cli_workload **out,
                            size_t *n, ic_err *err);

/* Releases what one workload owns and zeroes it (safe on a zeroed struct). */
void cli_workload_free(cli_workload *w);

/* Releases an array returned by cli_workload_list. */
void cli_workload_list_free(cli_workload *ws, size_t n);

/* The default manifest path and the workload directory (static strings or
   the environment's; valid until the environment changes). */
const char *cli_workload_manifest_path(void);
const char *cli_workload_dir(void);

#endif
