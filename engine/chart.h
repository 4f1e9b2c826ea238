/* chart.h: charts drawn with cairo into SVG or PNG files: grouped bars that
 * may be negative (the breakdown as the paper's Fig. 1b, and breakdowns side
 * by side) and lines over a numeric x (sensitivity curves as Fig. 3).
 *
 * The format follows the file name: .svg or .png. The file is drawn into a
 * temporary file beside it and renamed, so it is there whole or not at all.
 * Drawing conventions a test can rely on in the SVG: every data bar is one
 * path filled at opacity 0.92 and every data line one path stroked 2.5
 * wide; nothing else is drawn that way. */
#ifndef IC_CHART_H
#define IC_CHART_H

#include <stdint.h>

#include "ic_err.h"

typedef struct ic_chart_bars {
  const char *title, *subtitle, *ylabel; /* ylabel names the unit */
  int ngroups, nseries;                  /* bars: ngroups x nseries */
  const char *const *group_labels;       /* [ngroups], under the axis */
  const double *values;                  /* [g * nseries + s]; NAN: no bar */
  const uint32_t *colors;                /* [g * nseries + s] 0xRRGGBB */
  int nlegend;                           /* legend entries (0: none) */
  const char *const *legend_labels;
  const uint32_t *legend_colors;
  int value_labels;                      /* print each bar's value on it */
} ic_chart_bars;

typedef struct ic_chart_lines {
  const char *title, *subtitle, *xlabel, *ylabel;
  int npoints, nseries;
  const double *x;                       /* [npoints], increasing */
  const double *y;                       /* [s * npoints + p]; NAN: a gap */
  const char *const *series_labels;      /* [nseries], the legend */
  int log2x;                             /* x on a log2 scale (all x > 0) */
} ic_chart_lines;

/* A distinct colour for index k (a fixed palette, then its variations). */
uint32_t ic_chart_color(int k);

/* Write the chart to path (.svg or .png). IC_EINPUT for another suffix or
 * an empty chart; IC_ERUN if the file cannot be written. */
ic_status ic_chart_bars_write(const ic_chart_bars *c, const char *path, ic_err *err);
ic_status ic_chart_lines_write(const ic_chart_lines *c, const char *path, ic_err *err);

/* Frees cairo's and fontconfig's process-wide font caches. Call at most
 * once, at the end of a process that drew charts, when no chart is being
 * drawn (so leak checkers see no cache left). */
void ic_chart_release(void);

#endif
