/* cpus.c: the CPUs this process may use (cpus.h). */
#define _GNU_SOURCE
#include "cpus.h"

#include <sched.h>
#include <unistd.h>

int ic_cpus_allowed(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}
