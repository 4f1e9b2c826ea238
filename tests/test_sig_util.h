/* test_sig_util.h: the stitcher's machine parameters for tests, read from
 * the built-in baseline machine (configs/baseline.yaml) by the library's own
 * sig_machine_from_config, so tests do not keep copies of its numbers. */
#ifndef IC_TEST_SIG_UTIL_H
#define IC_TEST_SIG_UTIL_H

#include <criterion/criterion.h>

#include "ooo.h"
#include "sig.h"

static inline sig_machine t_sig_machine_baseline(void) {
  ooo_config *c;
  ic_err err;
  sig_machine m;
  cr_assert_eq(ooo_config_load(&c, NULL, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(sig_machine_from_config(c, &m, &err), IC_OK, "%s", err.msg);
  ooo_config_destroy(c);
  return m;
}

#endif
