/* cpus.h: how many CPUs icost's threads may use. */
#ifndef IC_CPUS_H
#define IC_CPUS_H

/* The CPUs this process may run on (sched_getaffinity: a taskset, a cgroup
 * cpuset or a Slurm allocation narrows it below the machine's), at least 1.
 * Every default thread count follows it. Time complexity: O(1), a system call. */
int ic_cpus_allowed(void);

#endif
