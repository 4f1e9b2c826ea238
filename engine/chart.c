/* chart.c: bar and line charts with cairo, as SVG or PNG (chart.h). Sizes
 * are in points (1/72 in); a PNG is drawn at 2 pixels per point so that it
 * stays sharp when printed. */
#define _GNU_SOURCE
#include "chart.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FONT "DejaVu Sans"
#define BAR_ALPHA 0.92
#define LINE_WIDTH 2.5

static const uint32_t palette[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                   0x8c564b, 0xe377c2, 0x17becf, 0xbcbd22, 0x7f7f7f};

uint32_t ic_chart_color(int k) {
  const int n = (int)(sizeof palette / sizeof palette[0]);
  uint32_t c = palette[k % n];
  if (k / n % 2 == 1) { /* the second round: lighter */
    uint32_t r = c >> 16 & 255, g = c >> 8 & 255, b = c & 255;
    r = (r + 255) / 2, g = (g + 255) / 2, b = (b + 255) / 2;
    c = r << 16 | g << 8 | b;
  }
  return c;
}

void ic_chart_release(void) {
  cairo_debug_reset_static_data();
  FcFini();
}

static void set_rgb(cairo_t *cr, uint32_t c, double a) {
  cairo_set_source_rgba(cr, (c >> 16 & 255) / 255.0, (c >> 8 & 255) / 255.0, (c & 255) / 255.0, a);
}

/* ---- surfaces ---------------------------------------------------------- */

typedef struct canvas {
  cairo_surface_t *s;
  cairo_t *cr;
  int png;
  char tmp[4200];
  const char *path;
} canvas;

static int ends_with(const char *s, const char *suf) {
  size_t l = strlen(s), m = strlen(suf);
  return l > m && !strcasecmp(s + l - m, suf);
}

static ic_status canvas_open(canvas *cv, const char *path, double w, double h, ic_err *err) {
  memset(cv, 0, sizeof *cv);
  cv->path = path;
  if (ends_with(path, ".png")) cv->png = 1;
  else if (!ends_with(path, ".svg"))
    return ic_fail(err, IC_EINPUT, "%s: a chart is .svg or .png", path);
  snprintf(cv->tmp, sizeof cv->tmp, "%s.tmp%ld", path, (long)getpid());
  if (cv->png) {
    cv->s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)(w * 2), (int)(h * 2));
  } else {
    cv->s = cairo_svg_surface_create(cv->tmp, w, h);
  }
  if (cairo_surface_status(cv->s) != CAIRO_STATUS_SUCCESS) {
    ic_status st = ic_fail(err, IC_ERUN, "%s: %s", path,
                           cairo_status_to_string(cairo_surface_status(cv->s)));
    cairo_surface_destroy(cv->s);
    unlink(cv->tmp);
    return st;
  }
  cv->cr = cairo_create(cv->s);
  if (cv->png) cairo_scale(cv->cr, 2, 2);
  cairo_set_source_rgb(cv->cr, 1, 1, 1);
  cairo_paint(cv->cr);
  cairo_select_font_face(cv->cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  return IC_OK;
}

static ic_status canvas_close(canvas *cv, ic_err *err) {
  cairo_status_t cs = cairo_status(cv->cr);
  cairo_destroy(cv->cr);
  cairo_surface_flush(cv->s);
  if (cs == CAIRO_STATUS_SUCCESS && cv->png) cs = cairo_surface_write_to_png(cv->s, cv->tmp);
  cairo_surface_finish(cv->s);
  if (cs == CAIRO_STATUS_SUCCESS) cs = cairo_surface_status(cv->s);
  cairo_surface_destroy(cv->s);
  if (cs != CAIRO_STATUS_SUCCESS) {
    unlink(cv->tmp);
    return ic_fail(err, IC_ERUN, "%s: %s", cv->path, cairo_status_to_string(cs));
  }
  if (rename(cv->tmp, cv->path) != 0) {
    int e = errno;
    unlink(cv->tmp);
    return ic_fail(err, IC_ERUN, "%s: %s", cv->path, strerror(e));
  }
  return IC_OK;
}

/* ---- text and axes ------------------------------------------------------- */

typedef enum { AL_LEFT, AL_CENTER, AL_RIGHT } align;

static double text_width(cairo_t *cr, const char *s, double size) {
  cairo_text_extents_t te;
  cairo_set_font_size(cr, size);
  cairo_text_extents(cr, s, &te);
  return te.x_advance;
}

/* Text with its baseline's anchor at (x, y), turned by angle (radians). */
static void text(cairo_t *cr, double x, double y, const char *s, double size, align al,
                 double angle, int bold) {
  cairo_save(cr);
  cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  double w = text_width(cr, s, size);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, angle);
  cairo_move_to(cr, al == AL_LEFT ? 0 : al == AL_CENTER ? -w / 2 : -w, 0);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_show_text(cr, s);
  cairo_restore(cr);
}

/* Ticks: a 1-2-5 step giving about `want` intervals over [lo, hi], the
 * range widened to multiples of it. */
static double nice_step(double lo, double hi, int want) {
  double span = hi - lo;
  if (!(span > 0)) span = fabs(hi) > 0 ? fabs(hi) : 1;
  double raw = span / want, mag = pow(10, floor(log10(raw))), f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void fmt_num(char *buf, size_t cap, double v, double step) {
  if (fabs(v) < step * 1e-9) v = 0;
  int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
  if (dec > 6) dec = 6;
  snprintf(buf, cap, "%.*f", dec, v);
}

typedef struct plot_area {
  double x0, y0, w, h; /* the plotting rectangle; y0 its top */
  double lo, hi, step; /* y range and tick step */
} plot_area;

static double ymap(const plot_area *a, double v) { return a->y0 + a->h * (a->hi - v) / (a->hi - a->lo); }

/* y grid, tick labels, axis lines, the y label and the title */
static void frame(cairo_t *cr, const plot_area *a, const char *title, const char *subtitle,
                  const char *ylabel, double width) {
  char buf[64];
  cairo_set_line_width(cr, 0.5);
  for (double v = a->lo; v <= a->hi + a->step * 1e-6; v += a->step) {
    double y = ymap(a, v);
    cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
    cairo_move_to(cr, a->x0, y);
    cairo_line_to(cr, a->x0 + a->w, y);
    cairo_stroke(cr);
    fmt_num(buf, sizeof buf, v, a->step);
    text(cr, a->x0 - 6, y + 4, buf, 10, AL_RIGHT, 0, 0);
  }
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  cairo_set_line_width(cr, 1.0);
  cairo_move_to(cr, a->x0, a->y0);
  cairo_line_to(cr, a->x0, a->y0 + a->h);
  cairo_line_to(cr, a->x0 + a->w, a->y0 + a->h);
  cairo_stroke(cr);
  if (a->lo < 0 && a->hi > 0) { /* the zero line, darker */
    cairo_set_line_width(cr, 1.2);
    cairo_move_to(cr, a->x0, ymap(a, 0));
    cairo_line_to(cr, a->x0 + a->w, ymap(a, 0));
    cairo_stroke(cr);
  }
  if (ylabel) text(cr, 18, a->y0 + a->h / 2, ylabel, 11, AL_CENTER, -M_PI / 2, 0);
  if (title) text(cr, width / 2, 22, title, 14, AL_CENTER, 0, 1);
  if (subtitle) text(cr, width / 2, 40, subtitle, 10, AL_CENTER, 0, 0);
}

static void y_range(plot_area *a, double lo, double hi) {
  if (lo > 0) lo = 0;
  if (hi < 0) hi = 0;
  if (hi - lo < 1e-9) hi = lo + 1;
  a->step = nice_step(lo, hi, 6);
  /* the tolerance keeps a bound that is a multiple of the step (0) as is */
  a->lo = floor(lo / a->step + 1e-9) * a->step;
  a->hi = ceil(hi / a->step - 1e-9) * a->step;
}

/* the legend at the right: a swatch (or a line) and a label per entry */
static void legend(cairo_t *cr, double x, double y, int n, const char *const *labels,
                   const uint32_t *colors, int lines) {
  for (int k = 0; k < n; k++) {
    double yy = y + 16 * k;
    set_rgb(cr, colors[k], 1.0);
    if (lines) {
      cairo_set_line_width(cr, 2.0);
      cairo_move_to(cr, x, yy - 4);
      cairo_line_to(cr, x + 16, yy - 4);
      cairo_stroke(cr);
      cairo_arc(cr, x + 8, yy - 4, 3, 0, 2 * M_PI);
      cairo_fill(cr);
    } else {
      cairo_rectangle(cr, x, yy - 9, 12, 10);
      cairo_fill(cr);
    }
    text(cr, x + 20, yy, labels[k], 10, AL_LEFT, 0, 0);
  }
}

static double legend_width(cairo_t *cr, int n, const char *const *labels) {
  double w = 0;
  for (int k = 0; k < n; k++) {
    double t = text_width(cr, labels[k], 10);
    if (t > w) w = t;
  }
  return n ? w + 40 : 0;
}

/* ---- bars ------------------------------------------------------------------ */

ic_status ic_chart_bars_write(const ic_chart_bars *c, const char *path, ic_err *err) {
  if (c->ngroups < 1 || c->nseries < 1)
    return ic_fail(err, IC_EINPUT, "%s: a bar chart needs at least one bar", path);
  const int nb = c->ngroups * c->nseries;
  double lo = 0, hi = 0;
  for (int k = 0; k < nb; k++)
    if (!isnan(c->values[k])) {
      if (c->values[k] < lo) lo = c->values[k];
      if (c->values[k] > hi) hi = c->values[k];
    }
  /* measure the labels on a scratch surface to size the canvas */
  cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 4, 4);
  cairo_t *m = cairo_create(scratch);
  cairo_select_font_face(m, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  double lw = legend_width(m, c->nlegend, c->legend_labels), glab = 0;
  for (int g = 0; g < c->ngroups; g++) {
    double t = text_width(m, c->group_labels[g], 10);
    if (t > glab) glab = t;
  }
  cairo_destroy(m);
  cairo_surface_destroy(scratch);
  const double barw = c->nseries == 1 ? 26 : 11, gap = c->nseries == 1 ? 12 : 16;
  const double groupw = barw * c->nseries + gap;
  const int rotate = glab > groupw - 4;
  plot_area a = {.x0 = 70, .y0 = 58};
  a.w = groupw * c->ngroups + gap;
  const double bottom = rotate ? glab * 0.72 + 30 : 40;
  double width = a.x0 + a.w + 20 + lw;
  if (width < 480) {
    a.w += 480 - width;
    width = 480;
  }
  a.h = 300;
  const double height = a.y0 + a.h + bottom;
  y_range(&a, lo, hi);
  canvas cv;
  ic_status st = canvas_open(&cv, path, width, height, err);
  if (st != IC_OK) return st;
  cairo_t *cr = cv.cr;
  frame(cr, &a, c->title, c->subtitle, c->ylabel, width);
  const double gw = a.w / c->ngroups, inner = (gw - barw * c->nseries) / 2;
  for (int g = 0; g < c->ngroups; g++) {
    double gx = a.x0 + gw * g;
    for (int s = 0; s < c->nseries; s++) {
      double v = c->values[g * c->nseries + s];
      if (isnan(v)) continue;
      double x = gx + inner + barw * s, y1 = ymap(&a, v), y0 = ymap(&a, 0);
      set_rgb(cr, c->colors[g * c->nseries + s], BAR_ALPHA);
      cairo_rectangle(cr, x, fmin(y0, y1), barw - (c->nseries > 1 ? 1 : 0), fabs(y1 - y0));
      cairo_fill(cr);
      if (c->value_labels) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.1f", v);
        text(cr, x + barw / 2, v >= 0 ? y1 - 3 : y1 + 11, buf, 8, AL_CENTER, 0, 0);
      }
    }
    double lx = gx + gw / 2, ly = a.y0 + a.h + 14;
    if (rotate) text(cr, lx + 3, ly - 4, c->group_labels[g], 10, AL_RIGHT, -M_PI / 4, 0);
    else text(cr, lx, ly, c->group_labels[g], 10, AL_CENTER, 0, 0);
  }
  if (c->nlegend)
    legend(cr, a.x0 + a.w + 24, a.y0 + 10, c->nlegend, c->legend_labels, c->legend_colors, 0);
  return canvas_close(&cv, err);
}

/* ---- lines ------------------------------------------------------------------ */

ic_status ic_chart_lines_write(const ic_chart_lines *c, const char *path, ic_err *err) {
  if (c->npoints < 1 || c->nseries < 1)
    return ic_fail(err, IC_EINPUT, "%s: a line chart needs at least one point", path);
  for (int p = 0; p < c->npoints; p++)
    if (c->log2x && !(c->x[p] > 0))
      return ic_fail(err, IC_EINPUT, "%s: log2 x axis with x <= 0", path);
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < c->npoints * c->nseries; k++)
    if (!isnan(c->y[k])) {
      lo = fmin(lo, c->y[k]);
      hi = fmax(hi, c->y[k]);
    }
  if (!isfinite(lo)) lo = 0, hi = 1;
  cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 4, 4);
  cairo_t *m = cairo_create(scratch);
  cairo_select_font_face(m, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  double lw = legend_width(m, c->nseries, c->series_labels);
  cairo_destroy(m);
  cairo_surface_destroy(scratch);
  plot_area a = {.x0 = 70, .y0 = 58, .w = 440, .h = 300};
  const double width = a.x0 + a.w + 30 + lw, height = a.y0 + a.h + 56;
  y_range(&a, lo, hi);
  canvas cv;
  ic_status st = canvas_open(&cv, path, width, height, err);
  if (st != IC_OK) return st;
  cairo_t *cr = cv.cr;
  frame(cr, &a, c->title, c->subtitle, c->ylabel, width);
  /* x: the points' own values as ticks, evenly spaced on log2 or linear */
  double xlo = c->x[0], xhi = c->x[c->npoints - 1];
  if (c->log2x) xlo = log2(xlo), xhi = log2(xhi);
  const double pad = 20;
#define XMAP(v)                                                                                \
  (c->npoints == 1 || xhi == xlo                                                               \
       ? a.x0 + a.w / 2                                                                        \
       : a.x0 + pad + (a.w - 2 * pad) * (((c->log2x ? log2(v) : (v)) - xlo) / (xhi - xlo)))
  for (int p = 0; p < c->npoints; p++) {
    char buf[32];
    snprintf(buf, sizeof buf, "%g", c->x[p]);
    double x = XMAP(c->x[p]);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.0);
    cairo_move_to(cr, x, a.y0 + a.h);
    cairo_line_to(cr, x, a.y0 + a.h + 4);
    cairo_stroke(cr);
    text(cr, x, a.y0 + a.h + 16, buf, 10, AL_CENTER, 0, 0);
  }
  if (c->xlabel) text(cr, a.x0 + a.w / 2, a.y0 + a.h + 40, c->xlabel, 11, AL_CENTER, 0, 0);
  uint32_t *colors = malloc((size_t)c->nseries * sizeof *colors);
  if (!colors) {
    canvas_close(&cv, err);
    unlink(path);
    return ic_fail(err, IC_ERUN, "out of memory");
  }
  for (int s = 0; s < c->nseries; s++) {
    colors[s] = ic_chart_color(s);
    set_rgb(cr, colors[s], 1.0);
    cairo_set_line_width(cr, LINE_WIDTH);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    int pen = 0, drawn = 0;
    for (int p = 0; p < c->npoints; p++) {
      double v = c->y[s * c->npoints + p];
      if (isnan(v)) continue; /* a gap: the line goes on to the next point */
      if (pen) cairo_line_to(cr, XMAP(c->x[p]), ymap(&a, v));
      else cairo_move_to(cr, XMAP(c->x[p]), ymap(&a, v));
      pen = 1;
      drawn++;
    }
    if (drawn) cairo_stroke(cr);
    for (int p = 0; p < c->npoints; p++) {
      double v = c->y[s * c->npoints + p];
      if (isnan(v)) continue;
      cairo_arc(cr, XMAP(c->x[p]), ymap(&a, v), 3.5, 0, 2 * M_PI);
      cairo_fill(cr);
    }
  }
#undef XMAP
  legend(cr, a.x0 + a.w + 30, a.y0 + 10, c->nseries, c->series_labels, colors, 1);
  free(colors);
  return canvas_close(&cv, err);
}
