/* trace_run.h: the commands' runs on a trace file (--trace FILE) instead of
 * a program: cli_run_setup and cli_run_execute hand over to these when
 * --trace is given (run.h). The trace is opened and checked once; each run
 * reads it again from the instruction --skip names (minus the warming), so
 * multisim's runs replay the same stream whatever the recorded program did.
 * x86-64 and AArch64 programs come here too (cli_host_setup): recorded
 * into such a trace, or streamed live from qemu for a single run. */
#ifndef IC_CLI_TRACE_RUN_H
#define IC_CLI_TRACE_RUN_H

#include "run.h"

/* Opens o->trace (format by --trace-format, else by the file name) into
 * r->trace and fills r's workload (named after the file), warm, max and
 * skipped. IC_EINPUT for a bad trace or a --skip past its end. */
ic_status cli_trace_setup(const cli_run_opts *o, cli_run *r, ic_err *err);
ic_status cli_trace_execute(const cli_run *r, ic_catmask ideal, const ic_graph_sink *sink,
                            cli_run_progress_fn progress, void *pctx, ooo_stats *stats,
                            ic_err *err);
ic_program_image cli_trace_image(const cli_run *r);

/* An x86-64 or AArch64 program (r->workload, already resolved). For a
 * command that times it once (o->once) the run streams from qemu-user
 * live: the model takes the records as the plugin makes them, and the code
 * qemu translated becomes the run's image when the run ends. Otherwise
 * instructions [0, --skip + --max) are recorded into a temporary trace,
 * which the runs then replay (multisim's subsets see one execution) and
 * cli_trace_free deletes. --skip and --max count records in both. */
ic_status cli_host_setup(const cli_run_opts *o, cli_run *r, uint32_t isa, ic_err *err);

/* Records argv[0..argc-1] (an x86-64 or AArch64 program of isa) through
 * qemu-user into the icost trace out: --skip instructions not recorded,
 * at most max (0: all); *n gets the instructions recorded. */
ic_status cli_record_host(const char *out, int argc, char **argv, uint32_t isa, uint64_t skip,
                          uint64_t max, int guest_output, uint64_t seed, uint64_t *n,
                          ic_err *err);
void cli_trace_free(cli_run *r);

/* Whether the run's records are x86-64 micro-ops of a host program (live,
   or an icost trace recorded from one): several records share a pc. */
int cli_trace_micro_ops(const cli_run *r);
/* Whether the run is of a host program (x86-64, AArch64) given after `--`
   rather than a trace file. */
int cli_trace_host_program(const cli_run *r);

#endif
