/* fuzz_config.c: libFuzzer target for machine configs (model/ooo_config.c):
 * a YAML file with `base:` and `--set` overrides. The input is split at
 * lines "#base" and "#set": before "#base" is the config (c.yaml), after it
 * the file it may name as `base: b.yaml`; each line after "#set" is one
 * --set KEY=VALUE. A config either loads, takes its overrides and writes
 * YAML that loads back to the same machine, or fails with a message. */
#include <stdint.h>

#include "fuzz_util.h"
#include "ooo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  char *sets = strstr(text, "\n#set\n");
  if (sets) *sets = 0, sets += 6;
  char *base = strstr(text, "\n#base\n");
  if (base) *base = 0, base += 7;
  char cpath[256], bpath[256], rpath[256];
  fz_write("c.yaml", text, strlen(text), cpath, sizeof cpath);
  fz_write("b.yaml", base ? base : "", base ? strlen(base) : 0, bpath, sizeof bpath);
  ooo_config *c = NULL;
  ic_err err = {{0}};
  ic_status st = ooo_config_load(&c, cpath, &err);
  fz_check(st, &err);
  for (char *line = sets; st == IC_OK && line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    err.msg[0] = 0;
    ic_status s2 = ooo_config_set(c, line, &err);
    fz_check(s2, &err);
    line = nl ? nl + 1 : NULL;
  }
  if (st == IC_OK) {
    /* what it writes loads back and writes the same */
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    FILE *m = open_memstream(&a, &na);
    ooo_config_write(c, m);
    fclose(m);
    fz_write("r.yaml", a, na, rpath, sizeof rpath);
    ooo_config *c2 = NULL;
    if (ooo_config_load(&c2, rpath, &err) != IC_OK) abort();
    m = open_memstream(&b, &nb);
    ooo_config_write(c2, m);
    fclose(m);
    /* the first line names the file it came from; the rest must agree */
    const char *ra = strchr(a, '\n'), *rb = strchr(b, '\n');
    if (!ra || !rb || strcmp(ra, rb) != 0) abort();
    ooo_config_destroy(c2);
    free(a);
    free(b);
  }
  ooo_config_destroy(c);
  free(text);
  return 0;
}
