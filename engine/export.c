/* export.c: graph records -> igraph graph -> GraphML or DOT (see export.h). */
#define _GNU_SOURCE /* open_memstream */
#include "ic_file.h"
#include "export.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph.h"
#include "inst.h"
#include "rec_eval.h"

void ic_export_igraph_init(void) { igraph_set_attribute_table(&igraph_cattribute_table); }

ic_status ic_export_parse_format(const char *s, ic_export_format *out, ic_err *err) {
  if (strcmp(s, "graphml") == 0) *out = IC_EXPORT_GRAPHML;
  else if (strcmp(s, "dot") == 0) *out = IC_EXPORT_DOT;
  else if (strcmp(s, "json") == 0) *out = IC_EXPORT_JSON;
  else if (strcmp(s, "yaml") == 0) *out = IC_EXPORT_YAML;
  else if (strcmp(s, "csv") == 0) *out = IC_EXPORT_CSV;
  else return ic_fail(err, IC_EINPUT, "graph format '%s': expected graphml, dot, json, yaml or csv", s);
  return IC_OK;
}

/* Saves igraph's handlers and silences them for one call. */
typedef struct quiet {
  igraph_error_handler_t *err;
  igraph_warning_handler_t *warn;
} quiet;

static quiet quiet_begin(void) {
  ic_export_igraph_init();
  return (quiet){igraph_set_error_handler(igraph_error_handler_ignore),
                 igraph_set_warning_handler(igraph_warning_handler_ignore)};
}

static void quiet_end(quiet q) {
  igraph_set_error_handler(q.err);
  igraph_set_warning_handler(q.warn);
}

/* Source instruction of edge e of record i (window-relative), after the
 * win idealization; -1 when it precedes the window. */
static int64_t edge_source(const ic_edge *e, size_t i, ic_catmask ideal) {
  uint64_t d = dg_edge_dist(e, ideal);
  return d > i ? -1 : (int64_t)(i - d);
}

static void parts_text(const ic_edge *e, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = 0;
  for (int p = 0; p < e->nparts && k < cap; p++) {
    uint8_t c = e->part[p].cat;
    int w = snprintf(buf + k, cap - k, "%s%s:%u", p ? "+" : "", c != IC_CAT_NONE ? ic_category_name(c) : "none",
                     e->part[p].cycles);
    if (w < 0) break;
    k += (size_t)w;
  }
}

static ic_status check_window(const ic_graph_rec *recs, size_t n, ic_err *err) {
  if (n == 0) return ic_fail(err, IC_EINPUT, "graph export: the window holds no instructions");
  if (n > IC_EXPORT_MAX_COUNT)
    return ic_fail(err, IC_EINPUT, "graph export: %zu instructions (at most %u)", n, IC_EXPORT_MAX_COUNT);
  for (size_t i = 0; i < n; i++) {
    const ic_graph_rec *r = &recs[i];
    if (r->seq != recs[0].seq + i)
      return ic_fail(err, IC_EINPUT, "graph record seq %llu: expected seq %llu", (unsigned long long)r->seq,
                     (unsigned long long)(recs[0].seq + i));
    ic_status st = ic_graph_rec_check(r, err);
    if (st != IC_OK) return st;
  }
  return IC_OK;
}

#define IGC(call)                     \
  do {                                \
    if ((irc = (call)) != IGRAPH_SUCCESS) goto fail; \
  } while (0)

/* build: the graph of recs under `ideal`, given what bound each record's
 * nodes in the window's evaluation (why[i], ic_graph_eval_why). */
static ic_status build(igraph_t *g, const ic_graph_rec *recs, size_t n, ic_catmask ideal, const ic_rec_why *why,
                       ic_err *err) {
  igraph_integer_t nv = (igraph_integer_t)(IC_NODE_COUNT * n + 1), start = nv - 1;
  igraph_error_t irc = IGRAPH_SUCCESS;
  int have_g = 0;
  igraph_vector_int_t ev;
  igraph_vector_t lat, dist, mem, ext, seqv, tv;
  igraph_strvector_t kind, parts, name, label, node, pcs, opc;
  /* init everything first so one cleanup path can destroy all */
  igraph_vector_int_init(&ev, 0);
  igraph_vector_init(&lat, 0);
  igraph_vector_init(&dist, 0);
  igraph_vector_init(&mem, 0);
  igraph_vector_init(&ext, 0);
  igraph_vector_init(&seqv, nv);
  igraph_vector_init(&tv, nv);
  igraph_strvector_init(&kind, 0);
  igraph_strvector_init(&parts, 0);
  igraph_strvector_init(&name, nv);
  igraph_strvector_init(&label, nv);
  igraph_strvector_init(&node, nv);
  igraph_strvector_init(&pcs, nv);
  igraph_strvector_init(&opc, nv);
  uint64_t external = 0, dropped = 0;
  char buf[160];
  for (size_t i = 0; i < n; i++) {
    const ic_graph_rec *r = &recs[i];
    for (int k = 0; k < IC_NODE_COUNT; k++) {
      igraph_integer_t v = (igraph_integer_t)(IC_NODE_COUNT * i + (size_t)k);
      VECTOR(seqv)[v] = (igraph_real_t)r->seq;
      VECTOR(tv)[v] = (igraph_real_t)r->t[k];
      snprintf(buf, sizeof buf, "%c%llu", ic_node_names[k], (unsigned long long)r->seq);
      IGC(igraph_strvector_set(&name, v, buf));
      snprintf(buf, sizeof buf, "%c%llu @%llu", ic_node_names[k], (unsigned long long)r->seq,
               (unsigned long long)r->t[k]);
      IGC(igraph_strvector_set(&label, v, buf));
      snprintf(buf, sizeof buf, "%c", ic_node_names[k]);
      IGC(igraph_strvector_set(&node, v, buf));
      snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)r->pc);
      IGC(igraph_strvector_set(&pcs, v, buf));
      IGC(igraph_strvector_set(&opc, v, r->opclass < IC_OP_COUNT ? ic_opclass_names[r->opclass] : "?"));
    }
    for (int j = 0; j < r->nedges + 3; j++) {
      /* after the record's edges, its rules' (rec_eval.h, ic_rec_why),
         each an edge where the rule moved its node: the IQ rule's, an IQ
         edge from the instruction whose issue gave D(i), latency 0; the
         MSHR rule's, an MSHR edge from the holder whose completion gave
         its last move of E(i), latency 0; the slot rule's, an IW edge from
         an instruction of the full cycle before its last move of E(i),
         latency 1 (bw) */
      ic_edge re;
      const ic_edge *e = &r->edge[j < r->nedges ? j : 0];
      uint64_t slot = 0;
      if (j >= r->nedges) {
        const int which = j - r->nedges;
        slot = which == 0 ? why[i].iq_from : which == 1 ? why[i].mshr_from : why[i].slot_from;
        if (!slot) continue;
        memset(&re, 0, sizeof re);
        re.kind = which == 0 ? IC_EDGE_IQ : which == 1 ? IC_EDGE_MSHR : IC_EDGE_IW;
        re.dist = (uint32_t)slot;
        if (which == 2) {
          re.nparts = 1;
          ic_part_set(&re.part[0], 1, IC_CAT_BW);
        }
        e = &re;
      } else if (dg_edge_dropped(e, ic_rec_rules_mask(&recs[i], ideal)) ||
                 (e->kind == IC_EDGE_IW && !(why[i].iw_held >> j & 1u))) {
        dropped++; /* gone, or an IW edge whose condition fails */
        continue;
      }
      int64_t src = slot ? (int64_t)(i - slot) : edge_source(e, i, ideal);
      external += src < 0;
      IGC(igraph_vector_int_push_back(
          &ev, src < 0 ? start : (igraph_integer_t)(IC_NODE_COUNT * (size_t)src + ic_edge_src_node[e->kind])));
      IGC(igraph_vector_int_push_back(&ev, (igraph_integer_t)(IC_NODE_COUNT * i + ic_edge_dst_node[e->kind])));
      IGC(igraph_vector_push_back(&lat, (igraph_real_t)ic_edge_latency(e, ideal)));
      uint64_t d = slot ? slot : e->dist;
      if (e->kind == IC_EDGE_CD && (ideal & IC_CATBIT(IC_CAT_WIN))) d *= IC_WIN_FACTOR;
      IGC(igraph_vector_push_back(&dist, (igraph_real_t)d));
      IGC(igraph_vector_push_back(&mem, (e->flags & IC_EDGE_MEM) ? 1 : 0));
      IGC(igraph_vector_push_back(&ext, src < 0));
      IGC(igraph_strvector_push_back(&kind, ic_edge_names[e->kind]));
      parts_text(e, buf, sizeof buf);
      IGC(igraph_strvector_push_back(&parts, buf));
    }
  }
  VECTOR(seqv)[start] = -1;
  VECTOR(tv)[start] = 0;
  IGC(igraph_strvector_set(&name, start, "start"));
  IGC(igraph_strvector_set(&label, start, "start @0"));
  IGC(igraph_strvector_set(&node, start, "S"));
  IGC(igraph_strvector_set(&pcs, start, ""));
  IGC(igraph_strvector_set(&opc, start, ""));
  IGC(igraph_empty(g, nv, IGRAPH_DIRECTED));
  have_g = 1;
  IGC(igraph_add_edges(g, &ev, NULL));
  IGC(igraph_cattribute_VAS_setv(g, "name", &name));
  IGC(igraph_cattribute_VAS_setv(g, "label", &label));
  IGC(igraph_cattribute_VAS_setv(g, "node", &node));
  IGC(igraph_cattribute_VAN_setv(g, "seq", &seqv));
  IGC(igraph_cattribute_VAN_setv(g, "t", &tv));
  IGC(igraph_cattribute_VAS_setv(g, "pc", &pcs));
  IGC(igraph_cattribute_VAS_setv(g, "opclass", &opc));
  IGC(igraph_cattribute_EAS_setv(g, "kind", &kind));
  IGC(igraph_cattribute_EAN_setv(g, "latency", &lat));
  IGC(igraph_cattribute_EAN_setv(g, "dist", &dist));
  IGC(igraph_cattribute_EAS_setv(g, "parts", &parts));
  IGC(igraph_cattribute_EAN_setv(g, "mem", &mem));
  IGC(igraph_cattribute_EAN_setv(g, "external", &ext));
  IGC(igraph_cattribute_GAN_set(g, "first_seq", (igraph_real_t)recs[0].seq));
  IGC(igraph_cattribute_GAN_set(g, "instructions", (igraph_real_t)n));
  IGC(igraph_cattribute_GAN_set(g, "external_edges", (igraph_real_t)external));
  IGC(igraph_cattribute_GAN_set(g, "dropped_edges", (igraph_real_t)dropped));
  {
    size_t k = 0;
    buf[0] = 0;
    for (int c = 0; c < IC_CAT_IDS; c++)
      if (ideal & IC_CATBIT(c)) {
        int w = snprintf(buf + k, sizeof buf - k, "%s%s", k ? "," : "", ic_category_name((unsigned)c));
        if (w > 0 && (size_t)w < sizeof buf - k) k += (size_t)w;
      }
  }
  IGC(igraph_cattribute_GAS_set(g, "ideal", buf));
fail:
  if (irc != IGRAPH_SUCCESS && have_g) igraph_destroy(g);
  igraph_vector_int_destroy(&ev);
  igraph_vector_destroy(&lat);
  igraph_vector_destroy(&dist);
  igraph_vector_destroy(&mem);
  igraph_vector_destroy(&ext);
  igraph_vector_destroy(&seqv);
  igraph_vector_destroy(&tv);
  igraph_strvector_destroy(&kind);
  igraph_strvector_destroy(&parts);
  igraph_strvector_destroy(&name);
  igraph_strvector_destroy(&label);
  igraph_strvector_destroy(&node);
  igraph_strvector_destroy(&pcs);
  igraph_strvector_destroy(&opc);
  if (irc != IGRAPH_SUCCESS)
    return ic_fail(err, IC_ERUN, "graph export: igraph: %s", igraph_strerror(irc));
  return IC_OK;
}

ic_status ic_export_build(igraph_t *g, const ic_graph_rec *recs, size_t n, ic_catmask ideal, ic_err *err) {
  ic_status rc = check_window(recs, n, err);
  if (rc != IC_OK) return rc;
  /* an IW edge holds only where its condition does, and the slot, MSHR
   * and IQ rules are edges only where they move their node, from where the
   * one evaluation says (rec_eval.h), in the window's own times under
   * `ideal` (sources before it at time 0) */
  ic_rec_why *why = malloc(n * sizeof *why);
  uint64_t tend;
  if (!why) rc = ic_fail(err, IC_ERUN, "graph export: out of memory");
  else rc = ic_graph_eval_why(recs, n, ideal, NULL, why, &tend, err);
  if (rc == IC_OK) {
    quiet q = quiet_begin();
    rc = build(g, recs, n, ideal, why, err);
    quiet_end(q);
  }
  free(why);
  return rc;
}

/* In-edge lists of g: first[v] and next[e], -1 ending a list, the newest
 * edge first (any tight in-edge is a critical one). 0, or -1 when out of
 * memory. */
static int in_lists(const igraph_t *g, igraph_vector_int_t *first, igraph_vector_int_t *next) {
  const igraph_integer_t nv = igraph_vcount(g), ne = igraph_ecount(g);
  if (igraph_vector_int_init(first, nv) != IGRAPH_SUCCESS) return -1;
  if (igraph_vector_int_init(next, ne) != IGRAPH_SUCCESS) {
    igraph_vector_int_destroy(first);
    return -1;
  }
  igraph_vector_int_fill(first, -1);
  for (igraph_integer_t e = 0; e < ne; e++) {
    igraph_integer_t v = IGRAPH_TO(g, e);
    VECTOR(*next)[e] = VECTOR(*first)[v];
    VECTOR(*first)[v] = e;
  }
  return 0;
}

int ic_export_critical_stamps(const igraph_t *g, uint8_t *crit_v, uint8_t *crit_e) {
  const igraph_integer_t nv = igraph_vcount(g), ne = igraph_ecount(g), start = nv - 1;
  igraph_vector_int_t first, next;
  if (in_lists(g, &first, &next) < 0) return -1;
  memset(crit_v, 0, (size_t)nv);
  memset(crit_e, 0, (size_t)ne);
  igraph_integer_t v = start - 1;
  if (v >= 0) crit_v[v] = 1;
  while (v >= 0) {
    igraph_integer_t pick = -1;
    const double tv = VAN(g, "t", v);
    for (igraph_integer_t e = VECTOR(first)[v]; e >= 0 && pick < 0; e = VECTOR(next)[e])
      if (IGRAPH_FROM(g, e) != start && VAN(g, "t", IGRAPH_FROM(g, e)) + EAN(g, "latency", e) == tv) pick = e;
    if (pick < 0) break;
    crit_e[pick] = 1;
    v = IGRAPH_FROM(g, pick);
    crit_v[v] = 1;
  }
  igraph_vector_int_destroy(&first);
  igraph_vector_int_destroy(&next);
  return 0;
}

int ic_export_critical(const igraph_t *g, uint64_t *t, uint8_t *crit_v, uint8_t *crit_e) {
  const igraph_integer_t nv = igraph_vcount(g), ne = igraph_ecount(g), start = nv - 1;
  igraph_vector_int_t first, next;
  if (in_lists(g, &first, &next) < 0) return -1;
  memset(crit_v, 0, (size_t)nv);
  memset(crit_e, 0, (size_t)ne);
  /* vertex ids are a topological order once "start" (the last id, time 0)
     goes first: edges join earlier instructions, or earlier nodes of the
     same instruction, to later ones */
  t[start] = 0;
  igraph_integer_t end = start;
  for (igraph_integer_t v = 0; v < start; v++) {
    uint64_t m = 0;
    for (igraph_integer_t e = VECTOR(first)[v]; e >= 0; e = VECTOR(next)[e]) {
      uint64_t a = t[IGRAPH_FROM(g, e)] + (uint64_t)EAN(g, "latency", e);
      if (a > m) m = a;
    }
    t[v] = m;
    if (m >= t[end]) end = v;
  }
  if (end != start) crit_v[end] = 1;
  for (igraph_integer_t v = end; v != start;) {
    igraph_integer_t pick = -1;
    for (igraph_integer_t e = VECTOR(first)[v]; e >= 0 && pick < 0; e = VECTOR(next)[e])
      if (t[IGRAPH_FROM(g, e)] + (uint64_t)EAN(g, "latency", e) == t[v]) pick = e;
    if (pick < 0) break; /* a vertex without in-edges at time 0 */
    crit_e[pick] = 1;
    v = IGRAPH_FROM(g, pick);
    crit_v[v] = 1;
  }
  igraph_vector_int_destroy(&first);
  igraph_vector_int_destroy(&next);
  return (int)end;
}

/* A DOT string: quotes and backslashes escaped. */
static void dot_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* Is edge e drawn from a stub in its destination's rank (write_dot)? */
static int dot_stub(const igraph_t *g, igraph_integer_t e, const uint8_t *ce) {
  const igraph_integer_t a = IGRAPH_FROM(g, e), b = IGRAPH_TO(g, e);
  if (a == igraph_vcount(g) - 1) return 1;
  return !ce[e] && b / IC_NODE_COUNT - a / IC_NODE_COUNT > IC_EXPORT_DOT_SPAN;
}

/* DOT for a person to look at and for `dot` to lay out quickly: one rank per
 * instruction (its five nodes in a rank=same subgraph, left to right by the
 * in-instruction edges, after a box naming the instruction), latencies as
 * edge xlabels (placed after layout: a label would be a node of its own,
 * and on a flat edge a rank of its own), the critical path in red. An edge
 * from before the window, or one not on the critical path that spans more
 * than IC_EXPORT_DOT_SPAN ranks (a CD edge spans the ROB), leaves a stub in
 * its destination's rank named after its source (stub_of: the source
 * vertex, "start" for one before the window): drawn whole, each would be a
 * chain of a node per rank crossed, most of `dot`'s time and the tangle.
 * A long critical edge is drawn whole but does not constrain the ranking,
 * so the ranks stay in program order. */
static ic_status write_dot(FILE *f, const igraph_t *g, ic_err *err) {
  const igraph_integer_t nv = igraph_vcount(g), ne = igraph_ecount(g), start = nv - 1;
  uint64_t *t = malloc((size_t)nv * sizeof *t);
  uint8_t *cv = malloc((size_t)nv), *ce = malloc(ne ? (size_t)ne : 1);
  if (!t || !cv || !ce || ic_export_critical(g, t, cv, ce) < 0) {
    free(t);
    free(cv);
    free(ce);
    return ic_fail(err, IC_ERUN, "graph export: out of memory");
  }
  uint64_t crit_len = 0, crit_edges = 0;
  for (igraph_integer_t v = 0; v < start; v++)
    if (cv[v] && t[v] > crit_len) crit_len = t[v];
  for (igraph_integer_t e = 0; e < ne; e++) crit_edges += ce[e];
  fprintf(f, "digraph icost_window {\n"
             "  graph [rankdir=TB, newrank=true, ranksep=0.25, nodesep=0.12, fontsize=10,\n"
             "         first_seq=%.0f, instructions=%.0f, external_edges=%.0f, dropped_edges=%.0f, ideal=",
          GAN(g, "first_seq"), GAN(g, "instructions"), GAN(g, "external_edges"), GAN(g, "dropped_edges"));
  dot_str(f, GAS(g, "ideal"));
  fprintf(f, ",\n         critical_path=%llu, critical_edges=%llu];\n"
             "  node [shape=box, fontsize=9, height=0.2, margin=\"0.03,0.01\"];\n"
             "  edge [fontsize=8, arrowsize=0.5];\n",
          (unsigned long long)crit_len, (unsigned long long)crit_edges);
  const igraph_integer_t ninst = start / IC_NODE_COUNT;
  igraph_integer_t xe = 0;
  for (igraph_integer_t i = 0; i < ninst; i++) {
    igraph_integer_t v0 = IC_NODE_COUNT * i;
    const char *pc = VAS(g, "pc", v0), *opc = VAS(g, "opclass", v0);
    fprintf(f, "  subgraph i%.0f {\n    rank=same;\n    I%.0f [shape=plaintext, label=", VAN(g, "seq", v0),
            VAN(g, "seq", v0));
    char head[96];
    snprintf(head, sizeof head, "%.0f %s %s", VAN(g, "seq", v0), pc, opc);
    dot_str(f, head);
    fputs("];\n", f);
    for (int k = 0; k < IC_NODE_COUNT; k++) {
      igraph_integer_t v = v0 + k;
      fprintf(f, "    %s [label=", VAS(g, "name", v));
      dot_str(f, VAS(g, "label", v));
      fprintf(f, ", \"node\"=%s, seq=%.0f, t=%.0f, pc=", VAS(g, "node", v), VAN(g, "seq", v), VAN(g, "t", v));
      dot_str(f, pc);
      fprintf(f, ", opclass=%s%s];\n", opc, cv[v] ? ", critical=1, color=red, fontcolor=red, penwidth=2" : "");
    }
    /* keeps the instruction's box left of its nodes */
    fprintf(f, "    I%.0f -> %s [style=invis];\n", VAN(g, "seq", v0), VAS(g, "name", v0));
    /* a stub for each edge from before the window into this instruction
       (the edges are in destination order): drawn from "start", they would
       cross every rank above */
    for (; xe < ne && IGRAPH_TO(g, xe) < v0 + IC_NODE_COUNT; xe++) {
      if (!dot_stub(g, xe, ce)) continue;
      const igraph_integer_t a = IGRAPH_FROM(g, xe);
      char src[48];
      if (a == start) {
        int node = 'S';
        for (int k = 0; k < IC_EDGE_KIND_COUNT; k++)
          if (strcmp(EAS(g, "kind", xe), ic_edge_names[k]) == 0) node = ic_node_names[ic_edge_src_node[k]];
        snprintf(src, sizeof src, "%c%.0f", node, VAN(g, "seq", v0) - EAN(g, "dist", xe));
      } else {
        snprintf(src, sizeof src, "%s", VAS(g, "name", a));
      }
      fprintf(f, "    x%lld [shape=plaintext, fontcolor=%s, label=\"%s\", stub_of=\"%s\"];\n", (long long)xe,
              ce[xe] ? "red" : "gray", src, a == start ? "start" : src);
    }
    fputs("  }\n", f);
  }
  for (igraph_integer_t e = 0; e < ne; e++) {
    igraph_integer_t a = IGRAPH_FROM(g, e), b = IGRAPH_TO(g, e);
    const int ext = EAN(g, "external", e) != 0;
    const igraph_integer_t span = ext ? 0 : b / IC_NODE_COUNT - a / IC_NODE_COUNT;
    if (dot_stub(g, e, ce)) fprintf(f, "  x%lld", (long long)e);
    else fprintf(f, "  %s", VAS(g, "name", a));
    fprintf(f, " -> %s [xlabel=\"%.0f\", kind=%s, latency=%.0f, dist=%.0f, parts=", VAS(g, "name", b),
            EAN(g, "latency", e), EAS(g, "kind", e), EAN(g, "latency", e), EAN(g, "dist", e));
    dot_str(f, EAS(g, "parts", e));
    fprintf(f, ", mem=%.0f, external=%d%s%s%s];\n", EAN(g, "mem", e), ext, span > IC_EXPORT_DOT_SPAN ? ", constraint=false" : "",
            ext ? ", style=dashed, color=gray" : "", ce[e] ? ", critical=1, color=red, fontcolor=red, penwidth=2" : "");
  }
  fputs("}\n", f);
  free(t);
  free(cv);
  free(ce);
  return IC_OK;
}

ic_status ic_export_emit(ic_emit *em, const ic_graph_rec *recs, size_t n, ic_catmask ideal, ic_err *err) {
  igraph_t g;
  ic_status rc = ic_export_build(&g, recs, n, ideal, err);
  if (rc != IC_OK) return rc;
  const igraph_integer_t nv = igraph_vcount(&g), ne = igraph_ecount(&g), start = nv - 1;
  uint64_t *t = malloc((size_t)nv * sizeof *t);
  uint8_t *cv = malloc((size_t)nv), *ce = malloc(ne ? (size_t)ne : 1);
  if (!t || !cv || !ce || ic_export_critical(&g, t, cv, ce) < 0) {
    rc = ic_fail(err, IC_ERUN, "graph export: out of memory");
  } else {
    uint64_t crit_len = 0;
    for (igraph_integer_t v = 0; v < start; v++)
      if (cv[v] && t[v] > crit_len) crit_len = t[v];
    ic_emit_map_begin(em, "graph");
    ic_emit_u64(em, "first_seq", (uint64_t)GAN(&g, "first_seq"));
    ic_emit_u64(em, "instructions", (uint64_t)GAN(&g, "instructions"));
    ic_emit_str(em, "ideal", GAS(&g, "ideal"));
    ic_emit_u64(em, "external_edges", (uint64_t)GAN(&g, "external_edges"));
    ic_emit_u64(em, "dropped_edges", (uint64_t)GAN(&g, "dropped_edges"));
    ic_emit_u64(em, "critical_path", crit_len);
    ic_emit_map_end(em);
    static const ic_emit_col vcols[] = {{"id", -1, 0},  {"name", -1, 0}, {"node", -1, 0},
                                        {"seq", -1, 0}, {"t", -1, 0},    {"time", -1, 0},
                                        {"pc", -1, 0},  {"opclass", -1, 0}, {"critical", -1, 0}};
    ic_emit_table_begin(em, "nodes", vcols, (int)(sizeof vcols / sizeof vcols[0]), 0);
    for (igraph_integer_t v = 0; v < nv; v++) {
      ic_emit_row_begin(em);
      ic_emit_i64(em, NULL, (int64_t)v);
      ic_emit_str(em, NULL, VAS(&g, "name", v));
      ic_emit_str(em, NULL, VAS(&g, "node", v));
      ic_emit_i64(em, NULL, (int64_t)VAN(&g, "seq", v));
      ic_emit_u64(em, NULL, (uint64_t)VAN(&g, "t", v));
      ic_emit_u64(em, NULL, t[v]);
      ic_emit_str(em, NULL, VAS(&g, "pc", v));
      ic_emit_str(em, NULL, VAS(&g, "opclass", v));
      ic_emit_u64(em, NULL, cv[v]);
      ic_emit_row_end(em);
    }
    ic_emit_table_end(em);
    static const ic_emit_col ecols[] = {{"source", -1, 0}, {"target", -1, 0}, {"kind", -1, 0},
                                        {"latency", -1, 0}, {"dist", -1, 0},  {"parts", -1, 0},
                                        {"mem", -1, 0},    {"external", -1, 0}, {"critical", -1, 0}};
    ic_emit_table_begin(em, "edges", ecols, (int)(sizeof ecols / sizeof ecols[0]), 0);
    for (igraph_integer_t e = 0; e < ne; e++) {
      ic_emit_row_begin(em);
      ic_emit_i64(em, NULL, (int64_t)IGRAPH_FROM(&g, e));
      ic_emit_i64(em, NULL, (int64_t)IGRAPH_TO(&g, e));
      ic_emit_str(em, NULL, EAS(&g, "kind", e));
      ic_emit_u64(em, NULL, (uint64_t)EAN(&g, "latency", e));
      ic_emit_u64(em, NULL, (uint64_t)EAN(&g, "dist", e));
      ic_emit_str(em, NULL, EAS(&g, "parts", e));
      ic_emit_u64(em, NULL, (uint64_t)EAN(&g, "mem", e));
      ic_emit_u64(em, NULL, EAN(&g, "external", e) != 0);
      ic_emit_u64(em, NULL, ce[e]);
      ic_emit_row_end(em);
    }
    ic_emit_table_end(em);
  }
  free(t);
  free(cv);
  free(ce);
  quiet q = quiet_begin();
  igraph_destroy(&g);
  quiet_end(q);
  return rc;
}

ic_status ic_export_write(FILE *f, const ic_graph_rec *recs, size_t n, ic_catmask ideal, ic_export_format fmt,
                          ic_err *err) {
  if (fmt != IC_EXPORT_GRAPHML && fmt != IC_EXPORT_DOT)
    return ic_fail(err, IC_EINPUT, "graph export: json, yaml and csv go through ic_export_emit");
  igraph_t g;
  ic_status rc = ic_export_build(&g, recs, n, ideal, err);
  if (rc != IC_OK) return rc;
  if (fmt == IC_EXPORT_DOT) {
    rc = write_dot(f, &g, err);
    quiet q = quiet_begin();
    igraph_destroy(&g);
    quiet_end(q);
    if (rc == IC_OK && ferror(f)) rc = ic_fail(err, IC_ERUN, "graph export: write error");
    return rc;
  }
  quiet q = quiet_begin();
  igraph_error_t irc = igraph_write_graph_graphml(&g, f, 0);
  igraph_destroy(&g);
  quiet_end(q);
  if (irc != IGRAPH_SUCCESS) return ic_fail(err, IC_ERUN, "graph export: igraph: %s", igraph_strerror(irc));
  if (ferror(f)) return ic_fail(err, IC_ERUN, "graph export: write error");
  return IC_OK;
}

ic_status ic_export_write_path(const char *path, const ic_graph_rec *recs, size_t n, ic_catmask ideal,
                               ic_export_format fmt, ic_err *err) {
  if (!path || strcmp(path, "-") == 0) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return ic_fail(err, IC_ERUN, "graph export: out of memory");
    ic_status rc = ic_export_write(m, recs, n, ideal, fmt, err);
    if (fclose(m) != 0 && rc == IC_OK) rc = ic_fail(err, IC_ERUN, "graph export: out of memory");
    if (rc == IC_OK && (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0))
      rc = ic_fail(err, IC_ERUN, "graph export: stdout: %s", strerror(errno));
    free(text);
    return rc;
  }
  ic_outfile *o;
  ic_status rc = ic_outfile_open(&o, path, err);
  if (rc != IC_OK) return rc;
  rc = ic_export_write(ic_outfile_stream(o), recs, n, ideal, fmt, err);
  if (rc != IC_OK) {
    ic_outfile_abort(o);
    return rc;
  }
  return ic_outfile_commit(o, err);
}

struct ic_export_recorder {
  uint64_t from, count, seen;
  size_t n;
  ic_graph_rec *recs;
};

ic_status ic_export_recorder_create(ic_export_recorder **out, uint64_t from, uint64_t count, ic_err *err) {
  *out = NULL;
  if (count == 0 || count > IC_EXPORT_MAX_COUNT)
    return ic_fail(err, IC_EINPUT, "graph window of %llu instructions: must be 1..%u", (unsigned long long)count,
                   IC_EXPORT_MAX_COUNT);
  ic_export_recorder *r = calloc(1, sizeof *r);
  if (r) r->recs = malloc((size_t)count * sizeof *r->recs);
  if (!r || !r->recs) {
    ic_export_recorder_destroy(r);
    return ic_fail(err, IC_ERUN, "graph export: out of memory for %llu records", (unsigned long long)count);
  }
  r->from = from;
  r->count = count;
  *out = r;
  return IC_OK;
}

void ic_export_recorder_destroy(ic_export_recorder *r) {
  if (!r) return;
  free(r->recs);
  free(r);
}

static ic_status recorder_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  ic_export_recorder *r = ctx;
  for (size_t i = 0; i < n; i++) {
    uint64_t s = recs[i].seq;
    r->seen++;
    if (s < r->from || s - r->from >= r->count) continue;
    if (s - r->from != r->n)
      return ic_fail(err, IC_EINPUT, "graph record seq %llu: expected seq %llu", (unsigned long long)s,
                     (unsigned long long)(r->from + r->n));
    r->recs[r->n++] = recs[i];
  }
  return IC_OK;
}

ic_graph_sink ic_export_recorder_sink(ic_export_recorder *r) {
  return (ic_graph_sink){.ctx = r, .consume = recorder_consume};
}

const ic_graph_rec *ic_export_recorder_records(const ic_export_recorder *r, size_t *n) {
  *n = r->n;
  return r->recs;
}

uint64_t ic_export_recorder_seen(const ic_export_recorder *r) { return r->seen; }
