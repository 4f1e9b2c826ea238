/* ic_err.h: error reporting shared by every part of icost.
 *
 * Library code never prints or exits. A fallible function returns an
 * ic_status and, on failure, fills an ic_err with one line that names the
 * input and the reason ("configs/x.yaml:12:5: rob must be a positive
 * integer"). Only frontends/cli prints the message, as "icost: <msg>". */
#ifndef IC_ERR_H
#define IC_ERR_H

#include <stdarg.h>
#include <stdio.h>

typedef enum ic_status {
  IC_OK = 0,
  IC_EINPUT = 2, /* bad usage or bad input (file, config, category): exit 2 */
  IC_ERUN = 1,   /* the run itself failed (guest fault, I/O error): exit 1 */
} ic_status;

typedef struct ic_err {
  char msg[512];
} ic_err;

/* Formats msg into err (if err is non-NULL) and returns status, so that a
 * failure path reads `return ic_fail(err, IC_EINPUT, "%s: bad", path);`. */
static inline ic_status ic_fail(ic_err *err, ic_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline ic_status ic_fail(ic_err *err, ic_status status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return status;
}

#endif
