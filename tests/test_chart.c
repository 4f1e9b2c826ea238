/* test_chart.c: charts (engine/chart.h, `icost --plot`, `icost sweep
 * --plot`): each chart is rendered, the SVG parsed (xmllint) for the number
 * of data bars and lines the data ask for, the SVG rendered again to PNG by
 * rsvg-convert, and the PNGs' sizes checked from their headers; bad file
 * names and unwritable places are errors that leave no file. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chart.h"
#include "test_util.h"
#include "test_cmd.h"

static void tmpdir(char *out, size_t cap) {
  snprintf(out, cap, "/tmp/icost-test-chart-XXXXXX");
  cr_assert_not_null(mkdtemp(out));
}

static void rmtree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* count of SVG paths whose style holds `style`, by XPath on the parsed file */
static int svg_count(const char *path, const char *style) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "xmllint --xpath \"count(//*[local-name()='path'][contains(@style,'%s')])\" '%s' 2>&1",
           style, path);
  int st;
  char *out = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "xmllint %s: %s", path, out);
  int n = atoi(out);
  free(out);
  return n;
}

static int svg_bars(const char *path) { return svg_count(path, "fill-opacity:0.92"); }
static int svg_lines(const char *path) { return svg_count(path, "stroke-width:2.5;"); }

/* a PNG's width and height from its IHDR; checks the signature */
static void png_size(const char *path, unsigned *w, unsigned *h) {
  size_t len;
  unsigned char *b = (unsigned char *)t_slurp(path, &len);
  cr_assert_not_null(b, "%s missing", path);
  cr_assert(len > 1000, "%s: %zu bytes", path, len);
  cr_assert(!memcmp(b, "\x89PNG\r\n\x1a\n", 8) && !memcmp(b + 12, "IHDR", 4), "%s: not a PNG", path);
  *w = (unsigned)b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19];
  *h = (unsigned)b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23];
  free(b);
}

/* rsvg-convert renders the SVG at 72 dpi: a pixel per point of its size */
static void svg_renders(const char *svg, unsigned *w, unsigned *h) {
  char png[600], cmd[1400];
  snprintf(png, sizeof png, "%s.rsvg.png", svg);
  snprintf(cmd, sizeof cmd, "rsvg-convert --dpi-x 72 --dpi-y 72 -o '%s' '%s' 2>&1", png, svg);
  int st;
  char *out = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "rsvg-convert %s: %s", svg, out);
  free(out);
  png_size(png, w, h);
  unlink(png);
}

/* each test runs in its own process: free the font caches at its end */
TestSuite(chart, .fini = ic_chart_release);

Test(chart, bars_svg_png_counts) {
  char dir[64], svg[128], png[128];
  tmpdir(dir, sizeof dir);
  snprintf(svg, sizeof svg, "%s/b.svg", dir);
  snprintf(png, sizeof png, "%s/b.png", dir);
  const char *labels[] = {"dl1", "win", "dl1+win", "base", "gap"};
  const double v[] = {12.5, 3.25, -4.0, 88.25, NAN};
  const uint32_t col[] = {1, 2, 3, 4, 5};
  const char *ll[] = {"a", "b"};
  const uint32_t lc[] = {1, 2};
  ic_chart_bars c = {.title = "t", .ylabel = "percent", .ngroups = 5, .nseries = 1,
                     .group_labels = labels, .values = v, .colors = col, .nlegend = 2,
                     .legend_labels = ll, .legend_colors = lc, .value_labels = 1};
  ic_err err;
  cr_assert_eq(ic_chart_bars_write(&c, svg, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_chart_bars_write(&c, png, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(svg_bars(svg), 4); /* the NAN has no bar */
  cr_assert_eq(svg_lines(svg), 0);
  unsigned w, h, rw, rh;
  png_size(png, &w, &h);
  svg_renders(svg, &rw, &rh);
  /* the PNG is drawn at 2 pixels per point of the SVG */
  cr_assert(w >= 960 && h >= 600, "%ux%u", w, h);
  cr_assert(abs((int)w - 2 * (int)rw) <= 2 && abs((int)h - 2 * (int)rh) <= 2, "%ux%u vs %ux%u", w,
            h, rw, rh);
  /* two series of 3 groups: 6 bars */
  const double v2[] = {1, 2, 3, -4, 5, 6};
  const uint32_t c2[] = {1, 2, 1, 2, 1, 2};
  c.ngroups = 3;
  c.nseries = 2;
  c.values = v2;
  c.colors = c2;
  cr_assert_eq(ic_chart_bars_write(&c, svg, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(svg_bars(svg), 6);
  rmtree(dir);
}

Test(chart, lines_svg_png_counts) {
  char dir[64], svg[128], png[128];
  tmpdir(dir, sizeof dir);
  snprintf(svg, sizeof svg, "%s/l.svg", dir);
  snprintf(png, sizeof png, "%s/l.png", dir);
  const double x[] = {32, 64, 128, 256};
  const double y[] = {10, 8, 6, 5, 12, NAN, 9, 7, 20, 15, 11, 10};
  const char *labels[] = {"l1d.latency = 1", "l1d.latency = 2", "l1d.latency = 3"};
  ic_chart_lines c = {.title = "t", .xlabel = "core.rob", .ylabel = "percent", .npoints = 4,
                      .nseries = 3, .x = x, .y = y, .series_labels = labels, .log2x = 1};
  ic_err err;
  cr_assert_eq(ic_chart_lines_write(&c, svg, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_chart_lines_write(&c, png, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(svg_lines(svg), 3);
  cr_assert_eq(svg_bars(svg), 0);
  unsigned w, h, rw, rh;
  png_size(png, &w, &h);
  svg_renders(svg, &rw, &rh);
  cr_assert(abs((int)w - 2 * (int)rw) <= 2, "%u vs %u", w, rw);
  rmtree(dir);
}

Test(chart, bad_names_and_places_leave_no_file) {
  const char *labels[] = {"a"};
  const double v[] = {1};
  const uint32_t col[] = {1};
  ic_chart_bars c = {.ngroups = 1, .nseries = 1, .group_labels = labels, .values = v,
                     .colors = col};
  ic_err err;
  cr_assert_eq(ic_chart_bars_write(&c, "/tmp/icost-test-chart.pdf", &err), IC_EINPUT);
  cr_assert(strstr(err.msg, ".svg or .png"), "%s", err.msg);
  cr_assert_eq(ic_chart_bars_write(&c, "/nonexistent-dir/x.png", &err), IC_ERUN);
  cr_assert_eq(ic_chart_bars_write(&c, "/nonexistent-dir/x.svg", &err), IC_ERUN);
  struct stat sb;
  cr_assert_neq(stat("/tmp/icost-test-chart.pdf", &sb), 0);
  c.ngroups = 0;
  cr_assert_eq(ic_chart_bars_write(&c, "/tmp/icost-test-chart-empty.svg", &err), IC_EINPUT);
  cr_assert_neq(stat("/tmp/icost-test-chart-empty.svg", &sb), 0);
}

static int workloads_built(void) {
  int st;
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s sim --workload mix.short --max 1k 2>&1", ICOST_BINARY);
  free(run_cmd(cmd, &st));
  return st == 0;
}

/* icost --plot: one bar per breakdown entry (3 categories: 7 + base). */
Test(chart, run_plot_one_bar_per_entry, .timeout = 60) {
  if (!workloads_built()) cr_skip("workloads not built");
  char dir[64], cmd[1024];
  tmpdir(dir, sizeof dir);
  snprintf(cmd, sizeof cmd,
           "%s --workload mix.short --max 20k --categories dl1,win,dmiss --plot %s/run.svg "
           ">/dev/null 2>&1 && %s --workload mix.short --max 20k --categories dl1,win,dmiss "
           "--plot %s/run.png >/dev/null 2>&1",
           ICOST_BINARY, dir, ICOST_BINARY, dir);
  cr_assert_eq(system(cmd), 0);
  char path[128];
  snprintf(path, sizeof path, "%s/run.svg", dir);
  cr_assert_eq(svg_bars(path), 8);
  unsigned w, h, rw, rh;
  svg_renders(path, &rw, &rh);
  snprintf(path, sizeof path, "%s/run.png", dir);
  png_size(path, &w, &h);
  cr_assert(abs((int)w - 2 * (int)rw) <= 2 && abs((int)h - 2 * (int)rh) <= 2);
  /* a bad name: one line, exit 2, before the run */
  snprintf(cmd, sizeof cmd, "%s --workload mix.short --plot %s/run.txt 2>&1", ICOST_BINARY, dir);
  int st;
  char *out = run_cmd(cmd, &st);
  cr_assert_eq(st, 2, "%s", out);
  cr_assert(strstr(out, "--plot") && strstr(out, ".svg or .png"), "%s", out);
  cr_assert(strchr(out, '\n') == out + strlen(out) - 1, "%s", out);
  free(out);
  rmtree(dir);
}

/* icost sweep --plot: per category a sensitivity chart with a line per
 * value of the second key, per workload the breakdowns of all points. */
Test(chart, sweep_plot_charts, .timeout = 120) {
  if (!workloads_built()) cr_skip("workloads not built");
  char dir[64], cmd[1024];
  tmpdir(dir, sizeof dir);
  snprintf(cmd, sizeof cmd,
           "%s sweep --vary core.rob=32..128*2 --vary l1d.latency=1,4 --workload mix.short "
           "--categories dl1,win --max 10k --out %s/store >/dev/null 2>&1 && "
           "%s sweep --out %s/store --plot %s/plots 2>&1",
           ICOST_BINARY, dir, ICOST_BINARY, dir, dir);
  int st;
  char *out = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "wrote 6 charts"), "%s", out);
  free(out);
  const char *cats[] = {"dl1", "win"};
  char path[256];
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/plots/mix.short-sensitivity-%s.svg", dir, cats[k]);
    cr_assert_eq(svg_lines(path), 2, "%s", path); /* l1d.latency 1 and 4 */
    unsigned w, h;
    svg_renders(path, &w, &h);
    snprintf(path, sizeof path, "%s/plots/mix.short-sensitivity-%s.png", dir, cats[k]);
    png_size(path, &w, &h);
  }
  /* a bar per point and entry (dl1, win, dl1+win, base) that is not 0
     cycles (a bar of no height draws nothing): counted in the store's table */
  snprintf(cmd, sizeof cmd, "%s sweep --out %s/store --export csv", ICOST_BINARY, dir);
  char *csv = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "%s", csv);
  static const char *const cols[] = {"dl1_cycles", "win_cycles", "dl1+win_cycles", "base_cycles"};
  int colk[4] = {-1, -1, -1, -1}, rows = 0, want = 0;
  char *save = NULL;
  for (char *line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    int k = 0, inq = 0;
    const char *f = line;
    for (const char *p = line;; p++) {
      if (*p == '"') inq = !inq;
      if ((*p == ',' && !inq) || !*p) {
        for (int c = 0; c < 4; c++) {
          if (!rows && (size_t)(p - f) == strlen(cols[c]) && !strncmp(f, cols[c], (size_t)(p - f)))
            colk[c] = k;
          if (rows && colk[c] == k && strtod(f, NULL) != 0) want++;
        }
        k++;
        f = p + 1;
        if (!*p) break;
      }
    }
    rows++;
  }
  free(csv);
  for (int c = 0; c < 4; c++) cr_assert_geq(colk[c], 0, "no column %s", cols[c]);
  cr_assert_eq(rows, 7, "a header and 6 points");
  snprintf(path, sizeof path, "%s/plots/mix.short-breakdowns.svg", dir);
  cr_assert_eq(svg_bars(path), want);
  unsigned w, h;
  svg_renders(path, &w, &h);
  snprintf(path, sizeof path, "%s/plots/mix.short-breakdowns.png", dir);
  png_size(path, &w, &h);
  rmtree(dir);
}
