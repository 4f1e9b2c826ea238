/* test_pipeview.c: `icost pipeview` writes a Kanata 0004 log.
 *
 * The log is read by a parser written from the format's description
 * (header line, then tab-separated commands: C= and C move the clock, I
 * starts an instruction, L labels it, S and E start and end a stage in a
 * lane, R retires it; every id introduced by I before use, nothing after
 * R, a stage ended only where it was started), and each instruction's
 * stages are checked against the model's stamps of the same window, taken
 * from `icost graph` (GraphML, read with igraph): D R E P start at the
 * stamps, fetch before dispatch, retirement at C, in commit order, with
 * retire ids counting up. Runs on the default workload (skipped where the
 * suite is not built). */
#include <criterion/criterion.h>
#include <igraph.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "test_cmd.h"
#include "test_igraph_util.h"

#define ICOST ICOST_BUILD_DIR "/icost"

typedef struct kinst {
  int seen, retired, label_crit;
  long long sim_id, retire_id;
  uint64_t start[5]; /* lane-0 start cycles of F D R E P */
  int have[5];
  int open0, open1;  /* the stage open in lanes 0 and 1 (-1: none) */
  uint64_t retire_at;
} kinst;

static int stage_index(const char *name) {
  static const char *const names[5] = {"F", "D", "R", "E", "P"};
  for (int k = 0; k < 5; k++)
    if (strcmp(name, names[k]) == 0) return k;
  return -1;
}

/* Parses the log into ins[0..cap); returns the instruction count, the
 * retirements in order in order[] (ids), *lane1 the lane-1 stages seen. */
static size_t parse_kanata(const char *path, kinst *ins, size_t cap, long long *order, size_t *nret, int *lane1) {
  FILE *f = fopen(path, "r");
  cr_assert(f, "%s", path);
  char line[4096];
  cr_assert(fgets(line, sizeof line, f));
  cr_assert_str_eq(line, "Kanata\t0004\n");
  uint64_t now = 0;
  int clock_set = 0;
  size_t n = 0;
  *nret = 0;
  *lane1 = 0;
  for (size_t i = 0; i < cap; i++) ins[i].open0 = ins[i].open1 = -1;
  while (fgets(line, sizeof line, f)) {
    cr_assert(strchr(line, '\n'), "line too long or unterminated: %s", line);
    line[strcspn(line, "\n")] = 0;
    char *save = NULL, *cmd = strtok_r(line, "\t", &save);
    cr_assert(cmd, "empty line");
    char *a = strtok_r(NULL, "\t", &save), *b = strtok_r(NULL, "\t", &save), *c = strtok_r(NULL, "", &save);
    if (strcmp(cmd, "C=") == 0) {
      cr_assert(a && !clock_set, "C= once, before the body");
      now = strtoull(a, NULL, 10);
      clock_set = 1;
      continue;
    }
    cr_assert(clock_set, "%s before C=", cmd);
    if (strcmp(cmd, "C") == 0) {
      cr_assert(a && atoll(a) > 0, "C needs a positive cycle count");
      now += strtoull(a, NULL, 10);
      continue;
    }
    cr_assert(a && b, "%s: missing arguments", cmd);
    size_t id = strtoull(a, NULL, 10);
    cr_assert_lt(id, cap);
    kinst *k = &ins[id];
    if (strcmp(cmd, "I") == 0) {
      cr_assert(c, "I needs a thread id");
      cr_assert(!k->seen, "id %zu introduced twice", id);
      cr_assert_eq(id, n, "file ids count up from 0");
      k->seen = 1;
      k->sim_id = atoll(b);
      n++;
      continue;
    }
    cr_assert(k->seen && !k->retired, "%s for id %zu outside its life", cmd, id);
    if (strcmp(cmd, "L") == 0) {
      cr_assert(c, "L needs text");
      if (strcmp(b, "0") == 0 && strstr(c, "[critical")) k->label_crit = 1;
    } else if (strcmp(cmd, "S") == 0 || strcmp(cmd, "E") == 0) {
      cr_assert(c, "%s needs a stage name", cmd);
      int lane = atoi(b), s = stage_index(c);
      cr_assert(lane == 0 || lane == 1, "lane %d", lane);
      cr_assert_geq(s, 0, "stage %s", c);
      int *open = lane ? &k->open1 : &k->open0;
      if (cmd[0] == 'S') {
        cr_assert_eq(*open, -1, "id %zu: %s starts in lane %d while %d is open", id, c, lane, *open);
        *open = s;
        if (lane == 0) {
          cr_assert(!k->have[s], "stage %s twice", c);
          k->have[s] = 1;
          k->start[s] = now;
        } else {
          (*lane1)++;
        }
      } else {
        cr_assert_eq(*open, s, "id %zu: %s ends but was not open", id, c);
        *open = -1;
      }
    } else if (strcmp(cmd, "R") == 0) {
      cr_assert(c && strcmp(c, "0") == 0, "a retirement, not a flush");
      cr_assert(k->open0 == -1 && k->open1 == -1, "id %zu retires with a stage open", id);
      k->retired = 1;
      k->retire_id = atoll(b);
      k->retire_at = now;
      order[(*nret)++] = (long long)id;
    } else {
      cr_assert_fail("unknown command %s", cmd);
    }
  }
  fclose(f);
  return n;
}

static int have_workload(void) {
  int st;
  free(run_cmd(ICOST " sim --max 10 >/dev/null 2>&1", &st));
  return st == 0;
}

Test(pipeview, stages_follow_the_stamps) {
  if (!have_workload()) cr_skip_test("the workload suite is not built");
  char dir[] = "/tmp/icost_pipeview_XXXXXX";
  cr_assert(mkdtemp(dir));
  const size_t from = 300, count = 160;
  char cmd[1024], kpath[300], gpath[300];
  snprintf(kpath, sizeof kpath, "%s/w.kanata", dir);
  snprintf(gpath, sizeof gpath, "%s/w.graphml", dir);
  int st;
  snprintf(cmd, sizeof cmd, ICOST " pipeview --from %zu --count %zu -o %s", from, count, kpath);
  free(run_cmd(cmd, &st));
  cr_assert_eq(st, 0, "%s", cmd);
  snprintf(cmd, sizeof cmd, ICOST " graph --from %zu --count %zu -o %s", from, count, gpath);
  free(run_cmd(cmd, &st));
  cr_assert_eq(st, 0, "%s", cmd);

  kinst *ins = calloc(count, sizeof *ins);
  long long *order = calloc(count, sizeof *order);
  size_t nret;
  int lane1;
  size_t n = parse_kanata(kpath, ins, count, order, &nret, &lane1);
  cr_assert_eq(n, count);
  cr_assert_eq(nret, count, "every instruction retires");

  ic_export_igraph_init();
  igraph_t g;
  FILE *f = fopen(gpath, "r");
  cr_assert(f);
  cr_assert_eq(igraph_read_graph_graphml(&g, f, 0), IGRAPH_SUCCESS);
  fclose(f);
  int crit_labels = 0;
  for (size_t i = 0; i < n; i++) {
    const kinst *k = &ins[i];
    igraph_integer_t v = 5 * (igraph_integer_t)i;
    cr_assert_eq(k->sim_id, (long long)VAN(&g, "seq", v), "instruction %zu: simulator id", i);
    cr_assert_eq((size_t)k->sim_id, from + i);
    for (int s = 0; s < 5; s++) cr_assert(k->have[s], "instruction %zu lacks stage %d", i, s);
    /* D R E P start at the model's stamps; fetch precedes dispatch */
    for (int node = 0; node < 4; node++)
      cr_assert_eq(k->start[node + 1], (uint64_t)VAN(&g, "t", v + node), "instruction %zu, node %d", i, node);
    cr_assert_eq(k->retire_at, (uint64_t)VAN(&g, "t", v + 4), "instruction %zu retires at its C", i);
    cr_assert_leq(k->start[0], k->start[1], "fetch <= dispatch");
    cr_assert_leq(k->start[1], k->start[3], "dispatch <= issue");
    cr_assert_leq(k->start[3], k->start[4], "issue <= complete");
    cr_assert_leq(k->start[4], k->retire_at, "complete <= commit");
    crit_labels += k->label_crit;
  }
  /* commit in order: retirements come in program order, ids counting up */
  for (size_t j = 0; j < nret; j++) {
    cr_assert_eq(order[j], (long long)j, "retirement %zu is instruction %lld", j, order[j]);
    cr_assert_eq(ins[j].retire_id, (long long)j);
    if (j) cr_assert_geq(ins[j].retire_at, ins[j - 1].retire_at);
  }
  cr_assert_gt(crit_labels, 0, "the critical path is marked in the labels");
  cr_assert_gt(lane1, 0, "and in lane 1");
  igraph_destroy(&g);
  free(ins);
  free(order);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

Test(pipeview, bad_usage_is_one_line) {
  int st;
  char *out = run_cmd(ICOST " pipeview --from 0 --count 5 2>&1", &st);
  cr_assert_eq(st, 2);
  cr_assert(strstr(out, "icost: pipeview: -o FILE is required") && strchr(out, '\n') == out + strlen(out) - 1,
            "%s", out);
  free(out);
  out = run_cmd(ICOST " pipeview --from 0 --count 0 -o /tmp/x.kanata 2>&1", &st);
  cr_assert_eq(st, 2);
  cr_assert(strstr(out, "--count 0"), "%s", out);
  free(out);
  out = run_cmd(ICOST " pipeview --from 0 --count 5 -o /nonexistent_icost_dir/x.kanata 2>&1", &st);
  if (have_workload()) {
    cr_assert_eq(st, 2, "%s", out);
    cr_assert(strstr(out, "/nonexistent_icost_dir/x.kanata"), "%s", out);
  }
  free(out);
}
