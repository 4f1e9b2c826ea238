/* test_engine_breakdown.c: cost and icost by Moebius inversion, the paper's
 * entry layout, and output that sums to exactly 100 percent. */
#include <math.h>
#include <yaml.h>

#include "breakdown.h"
#include "test_engine_graph_util.h"

static const uint8_t C3[] = {IC_CAT_DL1, IC_CAT_WIN, IC_CAT_BW};

/* t(S) for masks 0..7 of {dl1, win, bw}; icost worked out by hand:
 * cost = 0,20,10,40,5,30,15,60
 * icost{dl1} = 20, {win} = 10, {bw} = 5, {dl1,win} = 40-20-10 = 10,
 * {dl1,bw} = 30-20-5 = 5, {win,bw} = 15-10-5 = 0,
 * {dl1,win,bw} = 60 - (20+10+5) - (10+5+0) = 10; base = t(C) = 40. */
static const double T3[] = {100, 80, 90, 60, 95, 70, 85, 40};

Test(breakdown, moebius_by_hand) {
  ic_breakdown b;
  ic_err err;
  cr_assert_eq(ic_breakdown_from_times(&b, C3, 3, T3, &err), IC_OK);
  static const double want[] = {0, 20, 10, 10, 5, 5, 0, 10};
  for (int s = 0; s < 8; s++) {
    cr_assert_float_eq(b.icost[s], want[s], 1e-12, "icost[%d] = %g", s, b.icost[s]);
    cr_assert_float_eq(b.cost[s], 100 - T3[s], 1e-12);
  }
  cr_assert_float_eq(b.total, 100, 1e-12);
  cr_assert_null(b.lo);
  ic_breakdown_free(&b);
}

Test(breakdown, entries_in_paper_order) {
  ic_breakdown b;
  ic_err err;
  cr_assert_eq(ic_breakdown_from_times(&b, C3, 3, T3, &err), IC_OK);
  int n = ic_breakdown_entry_count(&b, 0);
  cr_assert_eq(n, 8);
  ic_bd_entry e[8];
  ic_breakdown_entries(&b, 0, e);
  static const char *names[] = {"dl1",    "win",        "bw",   "dl1+win",
                                "dl1+bw", "win+bw", "dl1+win+bw", "base"};
  static const double pct[] = {20, 10, 5, 10, 5, 0, 10, 40};
  for (int j = 0; j < 8; j++) {
    cr_assert_str_eq(e[j].name, names[j]);
    cr_assert_float_eq(e[j].percent, pct[j], 1e-9, "%s", names[j]);
  }
  cr_assert_eq(e[7].kind, IC_BD_BASE);
  cr_assert_float_eq(e[7].cycles, 40, 1e-12);
  ic_breakdown_free(&b);
}

/* Six categories, not all shown: singletons, pairs with the first, one
 * "other" entry with every remaining interaction, base. */
Test(breakdown, other_interactions_entry) {
  uint8_t cats[] = {IC_CAT_DMISS, IC_CAT_DL1, IC_CAT_WIN, IC_CAT_BW, IC_CAT_BMISP, IC_CAT_SHALU};
  double t[64];
  uint64_t x = 7;
  t[0] = 10000;
  for (int s = 1; s < 64; s++) t[s] = 2000 + tg_rand(&x) % 8000;
  ic_breakdown b;
  ic_err err;
  cr_assert_eq(ic_breakdown_from_times(&b, cats, 6, t, &err), IC_OK);
  int n = ic_breakdown_entry_count(&b, 0);
  cr_assert_eq(n, 6 + 5 + 1 + 1);
  ic_bd_entry e[13];
  ic_breakdown_entries(&b, 0, e);
  cr_assert_str_eq(e[6].name, "dmiss+dl1");
  cr_assert_str_eq(e[10].name, "dmiss+shalu");
  cr_assert_str_eq(e[11].name, "other");
  double other = 0;
  for (int s = 1; s < 64; s++)
    if (__builtin_popcount(s) >= 2 && !(__builtin_popcount(s) == 2 && (s & 1))) other += b.icost[s];
  cr_assert_float_eq(e[11].cycles, other, 1e-6);
  double sum = 0;
  for (int j = 0; j < n; j++) sum += e[j].cycles;
  cr_assert_float_eq(sum, 10000, 1e-6);
  cr_assert_eq(ic_breakdown_entry_count(&b, 1), 64);
  ic_breakdown_free(&b);
}

/* The entries read t only of the subsets ic_breakdown_needed names: with
 * the others NAN they are the same (other = cost(C) less the listed). */
Test(breakdown, needed_subsets_alone_give_the_same_entries) {
  uint8_t cats[] = {IC_CAT_WIN, IC_CAT_DL1, IC_CAT_DMISS, IC_CAT_BW, IC_CAT_BMISP, IC_CAT_SHALU,
                    IC_CAT_LGALU, IC_CAT_IMISS};
  uint8_t need[256];
  for (int ncat = 1; ncat <= 8; ncat++)
    for (int show_all = 0; show_all <= 1; show_all++) {
      const int n = 1 << ncat;
      const int count = ic_breakdown_needed(ncat, show_all, need);
      cr_assert_eq(count, show_all || ncat <= 4 ? n : 2 * ncat + 1, "%d categories", ncat);
      double t[256], tn[256];
      uint64_t x = 11 + (uint64_t)ncat;
      t[0] = 50000;
      for (int s = 1; s < n; s++) t[s] = 10000 + tg_rand(&x) % 40000;
      for (int s = 0; s < n; s++) tn[s] = need[s] ? t[s] : NAN;
      ic_breakdown b, bn;
      ic_err err;
      cr_assert_eq(ic_breakdown_from_times(&b, cats, ncat, t, &err), IC_OK);
      cr_assert_eq(ic_breakdown_from_times(&bn, cats, ncat, tn, &err), IC_OK);
      const int m = ic_breakdown_entry_count(&b, show_all);
      ic_bd_entry e[257], en[257];
      ic_breakdown_entries(&b, show_all, e);
      ic_breakdown_entries(&bn, show_all, en);
      for (int j = 0; j < m; j++) {
        cr_assert_str_eq(e[j].name, en[j].name);
        cr_assert_eq(e[j].cycles, en[j].cycles, "%d categories, %s: %g != %g", ncat, e[j].name,
                     e[j].cycles, en[j].cycles);
        cr_assert(!isnan(en[j].percent), "%s", en[j].name);
      }
      ic_breakdown_free(&b);
      ic_breakdown_free(&bn);
    }
}

/* Parses the text table: the percent column (one decimal) must sum to
 * exactly 1000 tenths, and the cycles column to the total. */
static void check_text_sums(const ic_breakdown *b, int show_all) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ic_err err;
  cr_assert_eq(ic_breakdown_write(b, f, IC_FMT_TEXT, show_all, 1, &err), IC_OK);
  fclose(f);
  long long tenths = 0;
  double cycles = 0;
  int rows = 0, saw_total = 0;
  char *save = NULL;
  for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char name[128], pct[32];
    double cyc;
    if (sscanf(line, "%127s %31s %lf", name, pct, &cyc) != 3) continue; /* header */
    if (!strcmp(name, "total")) {
      cr_assert_str_eq(pct, "100.0");
      cr_assert_float_eq(cyc, b->total, 1e-6);
      saw_total = 1;
      continue;
    }
    char *dot = strchr(pct, '.');
    cr_assert(dot && strlen(dot) == 2, "one decimal: %s", pct);
    long long ip = llabs(atoll(pct)), fp = atoll(dot + 1);
    tenths += (pct[0] == '-' ? -1 : 1) * (ip * 10 + fp);
    cycles += cyc;
    rows++;
  }
  cr_assert(saw_total);
  cr_assert_eq(rows, ic_breakdown_entry_count(b, show_all));
  cr_assert_eq(tenths, 1000, "printed percents sum to %lld tenths", tenths);
  cr_assert_float_eq(cycles, b->total, 1e-6);
  free(buf);
}

/* Breakdowns of random graphs (t(S) from the solver) always sum to 100. */
Test(breakdown, sums_to_100_on_random_graphs) {
  static const uint8_t cats[] = {IC_CAT_DL1,   IC_CAT_WIN,   IC_CAT_BW,    IC_CAT_BMISP,
                                 IC_CAT_DMISS, IC_CAT_SHALU, IC_CAT_LGALU, IC_CAT_IMISS};
  for (uint64_t seed = 1; seed <= 8; seed++) {
    tg g = {0};
    tg_random(&g, 300, seed, 20, 8);
    tg_stamp(&g);
    int ncat = 2 + (int)(seed % 7);
    uint64_t t[256];
    tg_solve(&g, cats, ncat, t, NULL);
    double td[256];
    for (int s = 0; s < (1 << ncat); s++) td[s] = (double)t[s];
    ic_breakdown b;
    ic_err err;
    cr_assert_eq(ic_breakdown_from_times(&b, cats, ncat, td, &err), IC_OK);
    for (int show_all = 0; show_all < 2; show_all++) {
      int n = ic_breakdown_entry_count(&b, show_all);
      ic_bd_entry *e = calloc((size_t)n, sizeof *e);
      ic_breakdown_entries(&b, show_all, e);
      double p = 0, c = 0;
      for (int j = 0; j < n; j++) {
        p += e[j].percent;
        c += e[j].cycles;
      }
      cr_assert_float_eq(p, 100.0, 1e-9);
      cr_assert_eq(c, td[0], "integer cycles sum exactly: %.17g vs %.17g", c, td[0]);
      free(e);
      check_text_sums(&b, show_all);
    }
    ic_breakdown_free(&b);
    tg_free(&g);
  }
}

static int yaml_parses(const char *buf, size_t len) {
  yaml_parser_t p;
  yaml_event_t ev;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
  int ok = 1, done = 0;
  while (!done) {
    if (!yaml_parser_parse(&p, &ev)) {
      ok = 0;
      break;
    }
    done = ev.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&p);
  return ok;
}

Test(breakdown, csv_and_yaml) {
  ic_breakdown b;
  ic_err err;
  cr_assert_eq(ic_breakdown_from_times(&b, C3, 3, T3, &err), IC_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_eq(ic_breakdown_write(&b, f, IC_FMT_CSV, 0, 0, &err), IC_OK);
  fclose(f);
  cr_assert(strstr(buf, "name,kind,percent,cycles\n"), "%s", buf);
  cr_assert(strstr(buf, "\ndl1+win,interaction,10,10\n"), "%s", buf);
  cr_assert(strstr(buf, "\nbase,base,40,40\n"), "%s", buf);
  cr_assert(strstr(buf, "#,categories,dl1,win,bw\n"), "%s", buf);
  free(buf);
  f = open_memstream(&buf, &len);
  b.lo = calloc(8, sizeof(double));
  b.hi = calloc(8, sizeof(double));
  b.lo[1] = 18.5;
  b.hi[1] = 21.5;
  cr_assert_eq(ic_breakdown_write(&b, f, IC_FMT_YAML, 0, 0, &err), IC_OK);
  fclose(f);
  cr_assert(yaml_parses(buf, len), "%s", buf);
  cr_assert(strstr(buf, "categories:\n- dl1\n- win\n- bw\n"), "%s", buf);
  cr_assert(strstr(buf, "- name: dl1+win\n  kind: interaction\n  set:\n  - dl1\n  - win\n"
                        "  percent: 10\n  cycles: 10\n"),
            "%s", buf);
  cr_assert(strstr(buf, "- name: base\n  kind: base\n  set: []\n  percent: 40\n  cycles: 40\n"),
            "%s", buf);
  cr_assert(strstr(buf, "lo: 18.5\n  hi: 21.5\n"), "%s", buf);
  free(buf);
  ic_breakdown_free(&b);
}

Test(breakdown, rejects_bad_lists_and_formats) {
  ic_breakdown b;
  ic_err err;
  uint8_t dup[] = {IC_CAT_DL1, IC_CAT_DL1};
  double t[4] = {1, 1, 1, 1};
  cr_assert_eq(ic_breakdown_from_times(&b, dup, 2, t, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "twice"), "%s", err.msg);
  ic_format fmt;
  cr_assert_eq(ic_format_parse("xml", &fmt, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "json"), "%s", err.msg);
  cr_assert_eq(ic_format_parse("json", &fmt, &err), IC_OK);
  cr_assert_eq(fmt, IC_FMT_JSON);
  cr_assert_eq(ic_format_parse("yaml", &fmt, &err), IC_OK);
  cr_assert_eq(fmt, IC_FMT_YAML);
}
