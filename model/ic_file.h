/* ic_file.h: the files icost reads and writes, done one way everywhere.
 *
 * Reading: ic_file_open_regular opens an input without blocking and refuses
 * what is not a regular file (a directory, a FIFO, /dev/zero), so that no
 * reader hangs or reads forever.
 *
 * Writing: an ic_outfile is written completely or not at all. It is an
 * unnamed file (O_TMPFILE) in the target's directory, or where the file
 * system has none, a temp file there named ".NAME.tmp.PID.K"; commit
 * flushes, fsyncs, gives it the name by rename (replacing an older file
 * atomically) and fsyncs the directory. abort, an error, or SIGINT, SIGTERM,
 * SIGHUP during the run leave no temp file: a handler installed with the
 * first outfile removes the named temp files that are still open and then
 * lets the signal take its default course. A path that names a device or a
 * FIFO (/dev/null, /dev/stdout) is written in place, never replaced; a
 * symlink is followed to the file it names. That list of open temp names is
 * process-wide (a signal handler can see nothing else); everything else is
 * per object. */
#ifndef IC_FILE_H
#define IC_FILE_H

#include <stdio.h>

#include "ic_err.h"

/* Opens path for reading. IC_EINPUT, "PATH: is a directory", "PATH: not a
   regular file" or "PATH: cannot open: <why>". Time complexity: O(1). */
ic_status ic_file_open_regular(FILE **out, const char *path, ic_err *err);

typedef struct ic_outfile ic_outfile;

/* Starts writing path (created with mode 0666 & ~umask). IC_EINPUT when
   the directory cannot take a file. */
ic_status ic_outfile_open(ic_outfile **out, const char *path, ic_err *err);

/* The stream to write to (binary; owned by the outfile). */
FILE *ic_outfile_stream(ic_outfile *o);

/* Flushes, fsyncs and names the file path; frees o in every case. IC_ERUN
   with the reason on a write error (a full disk): then nothing is left. */
ic_status ic_outfile_commit(ic_outfile *o, ic_err *err);

/* Drops what was written and frees o. NULL is fine. */
void ic_outfile_abort(ic_outfile *o);

#endif
