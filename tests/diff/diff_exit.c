/* diff_exit.c MODE: how a program ends, through stdio: buffered stdout and
 * unbuffered stderr, then
 *   exit    exit(77): stdio buffers are flushed by exit
 *   abort   abort(): killed by SIGABRT (exit status 134 under a shell)
 *   stdin   reads stdin (given /dev/null: end of file at once), returns 5 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  printf("diff_exit %s: %d %s %.3f\n", mode, argc, "buffered", 2.5);
  fprintf(stderr, "diff_exit %s: on stderr\n", mode);
  if (strcmp(mode, "exit") == 0) exit(77);
  if (strcmp(mode, "abort") == 0) {
    fflush(stdout);
    abort();
  }
  if (strcmp(mode, "stdin") == 0) {
    char buf[16];
    printf("read %zd\n", read(0, buf, sizeof buf));
    printf("getchar %d\n", getchar());
    return 5;
  }
  fprintf(stderr, "usage: diff_exit exit|abort|stdin\n");
  return 2;
}
