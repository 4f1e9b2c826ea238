/* x_strings N: formats N strings with snprintf and strdup's them, then
 * compares and searches them with strcmp, strstr and memchr (libc string
 * code, jump tables in memcpy, divides in number formatting). An extra
 * workload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4000;
  if (n < 2) return 2;
  char buf[256], **v = malloc((size_t)n * sizeof *v);
  if (!v) return 1;
  long tot = 0;
  for (int i = 0; i < n; i++) {
    snprintf(buf, sizeof buf, "item-%d-%x-%s", i * 7919, i * 31, (i & 1) ? "odd" : "even");
    if (!(v[i] = strdup(buf))) return 1;
    tot += (long)strlen(buf);
  }
  for (int r = 0; r < 5; r++)
    for (int i = 1; i < n; i++) {
      tot += strcmp(v[i], v[i - 1]) > 0;
      tot += strstr(v[i], "-1") != NULL;
      tot += memchr(v[i], 'x', strlen(v[i])) != NULL;
    }
  printf("%ld\n", tot);
  return 0;
}
