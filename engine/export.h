/* export.h: a window of graph records as an igraph graph, GraphML or DOT.
 *
 * Vertices: five per instruction, in sequence order, id 5*(seq - first) +
 * node (D R E P C), with attributes
 *   name  "D12" (node letter and sequence number), label (DOT) "D12 @40",
 *   node  "D".."C", seq, t (the model's cycle stamp), pc ("0x1014a"),
 *   opclass (ic_opclass name).
 * plus one last vertex, id 5*n, named "start" (node "S", seq -1, t 0): the
 * source of every edge whose source instruction precedes the window, so the
 * longest path from it evaluates the window exactly as graph_rec.h defines
 * a graph of these records (sources before the first record are time 0); for
 * a window starting at seq 0 that is the model's stamps, later it is a lower
 * bound of them.
 * Edges: every edge of the records, after applying the idealization mask as
 * graph_rec.h and graph.h say (parts of the masked categories are zeroed,
 * edges their rules drop are left out, win moves the CD source from i-w to
 * i-IC_WIN_FACTOR*w, and an IW edge whose condition fails in the window's
 * times under the mask is left out), and after each record's own edges its
 * rules' where a rule moved its node in those times, from where the one
 * evaluation says (model/rec_eval.h, ic_rec_why): an IQ edge (latency 0)
 * into D, an MSHR edge (latency 0) and an IW edge (latency 1, bw) into E;
 * so the longest path to every node is its time in ic_graph_eval, and
 * its slack in the graph the slack pass's over the same records in one
 * window (slack.h), with
 *   kind "EP", latency (cycles under the mask), dist (instructions back),
 *   parts ("dl1:2+dmiss:150+none:1", the baseline parts), mem (1 for a PR
 *   edge through memory), external (1 for an edge from "start").
 * Graph attributes: first_seq, instructions, ideal (comma list),
 * external_edges (edges from "start") and dropped_edges (removed by the
 * mask or the IW condition, not exported).
 *
 * igraph keeps its attribute handler and error handler in process-wide
 * state: these functions install the C attribute table (and leave it, since
 * a graph must be destroyed under the table that built it) and switch the
 * error handler to "ignore" for the duration of the call, checking every
 * return code, so igraph never aborts or prints. Not for hot paths. */
#ifndef IC_EXPORT_H
#define IC_EXPORT_H

#include <igraph.h>
#include <stdio.h>

#include "categories.h"
#include "emit.h"
#include "graph_rec.h"
#include "ic_err.h"

/* GraphML and DOT are written here; json, yaml and csv are the same graph
 * as tables through the report emitter (ic_export_emit), by the caller, who
 * owns the report's provenance. */
typedef enum ic_export_format {
  IC_EXPORT_GRAPHML,
  IC_EXPORT_DOT,
  IC_EXPORT_JSON,
  IC_EXPORT_YAML,
  IC_EXPORT_CSV
} ic_export_format;

/* Largest window the exporter accepts, instructions (the records are held
 * in memory: about 0.7 KB each). */
#define IC_EXPORT_MAX_COUNT 200000u

/* Installs igraph's C attribute table (idempotent). */
void ic_export_igraph_init(void);

/* "graphml", "dot", "json", "yaml" or "csv"; IC_EINPUT otherwise. */
ic_status ic_export_parse_format(const char *s, ic_export_format *out, ic_err *err);

/* Builds *g (which the caller destroys with igraph_destroy on success) from
 * n >= 1 consecutive records. Time: O(n * edges). */
ic_status ic_export_build(igraph_t *g, const ic_graph_rec *recs, size_t n, ic_catmask ideal, ic_err *err);

/* The longest path of a graph ic_export_build made, from "start": t[v]
 * (vcount entries) the time of every vertex, crit_v[v] (vcount) and
 * crit_e[e] (ecount) 1 on one critical path, ending at the latest vertex
 * (the last of the latest vertices: the last instruction's C), each
 * step back taking a tight in-edge (source time + latency = the
 * destination's time). Returns that vertex, -1 when out of memory.
 * Time complexity: O(vertices + edges). */
int ic_export_critical(const igraph_t *g, uint64_t *t, uint8_t *crit_v, uint8_t *crit_e);

/* The same walk in the model's stamps (vertex attribute t) instead of the
 * window's times: from the last instruction's C back through in-edges
 * whose source stamp plus latency is the destination's stamp, edges from
 * "start" excluded, until a vertex has none (the path then continues
 * before the window). Marks crit_v and crit_e as above; 0, or -1 when out
 * of memory. Time complexity: O(vertices + edges). */
int ic_export_critical_stamps(const igraph_t *g, uint8_t *crit_v, uint8_t *crit_e);

/* DOT: an edge joining instructions more than this many apart does not
 * constrain the ranking (one rank per instruction, in program order). */
#define IC_EXPORT_DOT_SPAN 4

/* The window as report values (emit.h): a mapping `graph` (first_seq,
 * instructions, ideal, external_edges, dropped_edges, critical_path), a
 * table `nodes` (id, name, node, seq, t: the model's stamp, time: the
 * longest path from "start" in the window, pc, opclass, critical: 1 on the
 * critical path DOT draws) and a table `edges` (source and target ids,
 * kind, latency, dist, parts, mem, external, critical). The same vertices
 * and edges as GraphML, "start" (the last id) included. */
ic_status ic_export_emit(ic_emit *em, const ic_graph_rec *recs, size_t n, ic_catmask ideal, ic_err *err);

/* Builds the graph and writes it to f in the format. DOT is written for
 * `dot`: one rank per instruction (a rank=same subgraph of its five nodes
 * after a plaintext box "SEQ PC OPCLASS"), edge labels the latencies under
 * the mask, one critical path (ic_export_critical) drawn in red with the
 * attribute critical=1 on its nodes and edges, the graph attributes
 * critical_path (its length) and critical_edges; the other attributes as
 * above. */
ic_status ic_export_write(FILE *f, const ic_graph_rec *recs, size_t n, ic_catmask ideal, ic_export_format fmt,
                          ic_err *err);

/* Writes to `path` completely or not at all (a temporary file beside it,
 * renamed into place); path NULL or "-" means stdout, written only after the
 * whole text was built in memory. */
ic_status ic_export_write_path(const char *path, const ic_graph_rec *recs, size_t n, ic_catmask ideal,
                               ic_export_format fmt, ic_err *err);

/* A graph sink that keeps the records with seq in [from, from + count). */
typedef struct ic_export_recorder ic_export_recorder;
ic_status ic_export_recorder_create(ic_export_recorder **out, uint64_t from, uint64_t count, ic_err *err);
void ic_export_recorder_destroy(ic_export_recorder *r);
ic_graph_sink ic_export_recorder_sink(ic_export_recorder *r);
/* The records kept so far (consecutive, starting at seq `from`). */
const ic_graph_rec *ic_export_recorder_records(const ic_export_recorder *r, size_t *n);
/* Records seen in total, kept or not. */
uint64_t ic_export_recorder_seen(const ic_export_recorder *r);

#endif
