/* gen_text SEED BYTES: writes BYTES bytes of deterministic pseudo-English
 * text to stdout: words drawn from a fixed vocabulary with a skewed
 * (roughly Zipf) distribution, sentences and paragraphs, and now and then a
 * number or a line of table-like data. The input the compressors of the
 * workload suite read; built and run on the host. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const vocab[] = {
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be",
    "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have",
    "an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has", "there",
    "been", "if", "more", "when", "will", "would", "who", "so", "no", "cache", "miss", "branch",
    "processor", "instruction", "latency", "bandwidth", "window", "pipeline", "memory", "graph",
    "critical", "path", "interaction", "cost", "parallel", "serial", "event", "cycle", "fetch",
    "commit", "dispatch", "execute", "register", "dependence", "predictor", "buffer", "queue",
    "compression", "block", "sorting", "huffman", "dictionary", "entropy", "symbol", "stream",
    "river", "mountain", "village", "winter", "harvest", "lantern", "quietly", "remarkable",
    "although", "nevertheless", "between", "through", "without", "because", "another",
};
#define NVOCAB (sizeof vocab / sizeof vocab[0])

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* skewed pick: the minimum of two uniform draws favours low indices */
static const char *word(uint64_t *s) {
  uint64_t a = lcg(s) % NVOCAB, b = lcg(s) % NVOCAB;
  return vocab[a < b ? a : b];
}

static int parse(const char *arg, const char *what, unsigned long long *out) {
  char *end;
  errno = 0;
  *out = strtoull(arg, &end, 10);
  if (errno || end == arg || *end || arg[0] == '-') {
    fprintf(stderr, "gen_text: %s must be a non-negative integer, not '%s'\n", what, arg);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  unsigned long long seed, bytes;
  if (argc != 3) {
    fprintf(stderr, "usage: gen_text SEED BYTES\n");
    return 2;
  }
  if (!parse(argv[1], "SEED", &seed) || !parse(argv[2], "BYTES", &bytes)) return 2;
  uint64_t s = seed * 2654435761ULL + 1;
  char buf[256];
  unsigned long long done = 0;
  size_t col = 0;
  int cap = 1;
  while (done < bytes) {
    int n;
    uint64_t r = lcg(&s) % 100;
    if (r < 2) {
      n = snprintf(buf, sizeof buf, "\n| %6llu | %8.3f | %s |\n", (unsigned long long)lcg(&s),
                   (double)(lcg(&s) % 100000) / 7.0, word(&s));
      col = 0;
    } else if (r < 4) {
      n = snprintf(buf, sizeof buf, ".\n\n");
      col = 0;
      cap = 1;
    } else if (r < 12) {
      n = snprintf(buf, sizeof buf, ". ");
      col += 2;
      cap = 1;
    } else if (r < 16) {
      n = snprintf(buf, sizeof buf, ", %s", word(&s));
      col += (size_t)n;
    } else {
      const char *w = word(&s);
      n = snprintf(buf, sizeof buf, "%s%c%s", col ? " " : "", cap ? w[0] - 'a' + 'A' : w[0],
                   w + 1);
      col += (size_t)n;
      cap = 0;
    }
    if (col > 72) {
      buf[n++] = '\n';
      col = 0;
    }
    size_t k = (size_t)n;
    if (k > bytes - done) k = (size_t)(bytes - done);
    if (fwrite(buf, 1, k, stdout) != k) {
      fprintf(stderr, "gen_text: write error: %s\n", strerror(errno));
      return 1;
    }
    done += k;
  }
  if (fflush(stdout) != 0) {
    fprintf(stderr, "gen_text: write error: %s\n", strerror(errno));
    return 1;
  }
  return 0;
}
