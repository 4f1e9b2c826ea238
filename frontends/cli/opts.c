/* opts.c: every command's option parsing on getopt_long (opts.h). Before
 * each getopt_long call the next argument is looked at here: `--`, words
 * and long names are decided by this file (exact names only, our own
 * messages); getopt_long does the rest (values, -jN, --opt=VALUE). */
#include "opts.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The entry named exactly name[0..len), or NULL. */
static const struct option *find_long(const struct option *opts, const char *name, size_t len) {
  for (const struct option *o = opts; o->name; o++)
    if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) return o;
  return NULL;
}

/* The one entry whose name starts with name[0..len), or NULL (none, or
   several). */
static const struct option *unique_prefix(const struct option *opts, const char *name, size_t len) {
  const struct option *hit = NULL;
  for (const struct option *o = opts; o->name; o++)
    if (len > 0 && strncmp(o->name, name, len) == 0) {
      if (hit) return NULL;
      hit = o;
    }
  return hit;
}

static int is_short_id(int id) {
  return id > 0 && id < 128 && isalnum(id);
}

ic_status cli_getopt(int argc, char **argv, const struct option *opts, cli_words words,
                     cli_option_fn fn, void *ctx, int *prog, ic_err *err) {
  const char *cmd = argc > 0 ? argv[0] : "icost";
  /* messages name a subcommand; for icost itself the caller's "icost: " does */
  const int sub = strcmp(cmd, "icost") != 0;
  const char *who = sub ? cmd : "", *sep = sub ? ": " : "", *help_sp = sub ? " " : "";
  const char *help_cmd = sub ? cmd : "";
  /* "+": stop at the first word (the program's arguments are not ours);
     ":": a missing value returns ':' */
  char shorts[2 + 2 * 62 + 1] = "+:";
  size_t ns = 2;
  for (const struct option *o = opts; o->name; o++)
    if (is_short_id(o->val) && !strchr(shorts + 2, o->val) && ns + 2 < sizeof shorts) {
      shorts[ns++] = (char)o->val;
      if (o->has_arg == required_argument) shorts[ns++] = ':';
    }
  shorts[ns] = 0;
  *prog = argc;
  optind = 0; /* glibc: a full re-initialisation */
  opterr = 0;
  for (;;) {
    const int next = optind > 0 ? optind : 1;
    if (next >= argc) break;
    const char *a = argv[next];
    if (strcmp(a, "--") == 0) {
      if (words == CLI_WORDS_OPERANDS) {
        for (int k = next + 1; k < argc; k++)
          if (fn(ctx, CLI_OPERAND, NULL, argv[k], err) != 0) return IC_EINPUT;
        break;
      }
      if (next + 1 >= argc)
        return ic_fail(err, IC_EINPUT, "%s%s'--' must be followed by a program", who, sep);
      *prog = next + 1;
      break;
    }
    if (a[0] != '-' || a[1] == 0) { /* a word ("-" included) */
      if (words == CLI_WORDS_PROGRAM) {
        *prog = next;
        break;
      }
      if (words == CLI_WORDS_AFTER_DASHES)
        return ic_fail(err, IC_EINPUT,
                       "%s%sunexpected argument '%s': a program comes after `--` (did you mean `-- %s`?)",
                       who, sep, a, a);
      if (fn(ctx, CLI_OPERAND, NULL, a, err) != 0) return IC_EINPUT;
      optind = next + 1;
      continue;
    }
    if (a[1] == '-') { /* a long option: its name in full */
      const char *name = a + 2, *eq = strchr(name, '=');
      const size_t len = eq ? (size_t)(eq - name) : strlen(name);
      const struct option *o = find_long(opts, name, len);
      if (!o) {
        const struct option *guess = unique_prefix(opts, name, len);
        if (guess)
          return ic_fail(err, IC_EINPUT, "%s%sunknown option '--%.*s' (did you mean --%s? see icost%s%s --help)",
                         who, sep, (int)len, name, guess->name, help_sp, help_cmd);
        return ic_fail(err, IC_EINPUT, "%s%sunknown option '--%.*s' (see icost%s%s --help)", who, sep,
                       (int)len, name, help_sp, help_cmd);
      }
      if (eq && o->has_arg == no_argument)
        return ic_fail(err, IC_EINPUT, "%s%s--%s takes no value ('%s')", who, sep, o->name, a);
    }
    int li = -1;
    const int c = getopt_long(argc, argv, shorts, opts, &li);
    if (c == -1) break;
    char name[80];
    if (li >= 0) snprintf(name, sizeof name, "--%s", opts[li].name);
    else snprintf(name, sizeof name, "-%c", c == ':' || c == '?' ? optopt : c);
    if (c == ':') {
      /* a long option without its value: optopt holds its id, and getopt
         has stepped past it */
      if (!(optopt > 0 && optopt < 128 && is_short_id(optopt) && argv[optind - 1][1] != '-'))
        snprintf(name, sizeof name, "%s", argv[optind - 1]);
      return ic_fail(err, IC_EINPUT, "%s%s%s needs a value", who, sep, name);
    }
    if (c == '?')
      return ic_fail(err, IC_EINPUT, "%s%sunknown option '%s' (see icost%s%s --help)", who, sep, name,
                     help_sp, help_cmd);
    if (fn(ctx, c, name, optarg, err) != 0) return IC_EINPUT;
  }
  return IC_OK;
}
