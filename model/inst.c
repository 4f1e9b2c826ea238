/* inst.c: name table of the op classes. */
#include "inst.h"

const char *const ic_opclass_names[IC_OP_COUNT] = {
#define IC_X(e, n) n,
  IC_OPCLASS_LIST(IC_X)
#undef IC_X
};
