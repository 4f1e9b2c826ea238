/* opts.h: the command line of every icost command, read with getopt_long.
 *
 * A command lists its options as getopt_long's table (struct option: name,
 * has_arg no_argument or required_argument, flag NULL, val the option's id;
 * an id that is an ASCII letter or digit also makes `-X` a short option, as
 * 'j' makes -j and 'o' makes -o) and cli_getopt hands each option it finds
 * to the command's callback in order. What every command shares:
 *   --opt VALUE and --opt=VALUE; -j N and -jN;
 *   long names in full: no abbreviations, so that a script keeps working
 *     when an option is added (a unique prefix gets "did you mean --NAME?");
 *   options end at `--` (the program and its arguments follow) or at the
 *     first word that is not an option (see cli_words);
 *   one-line errors (IC_EINPUT, exit 2): an unknown option, naming
 *     `icost CMD --help`; a missing value; a value for an option that takes
 *     none; a program given without `--`.
 * getopt_long's own messages are off (opterr = 0) and its state is reset on
 * each call, so a command may parse twice. */
#ifndef IC_CLI_OPTS_H
#define IC_CLI_OPTS_H

#include <getopt.h>

#include "ic_err.h"

/* The id of an operand (CLI_WORDS_OPERANDS). A command's own ids are
   letters, digits, or from CLI_OPT_OWN up to CLI_OPT_COMMON - 1; ids from
   CLI_OPT_COMMON on belong to the options of run.h. */
enum { CLI_OPERAND = 1, CLI_OPT_OWN = 256, CLI_OPT_COMMON = 0x1000 };

/* What a word that is not an option (and not an option's value) means. */
typedef enum {
  CLI_WORDS_AFTER_DASHES, /* an error ("did you mean `-- WORD`?"): the program comes after `--` */
  CLI_WORDS_PROGRAM,      /* the first one starts the program, as after `--` (icost emu) */
  CLI_WORDS_OPERANDS,     /* operands, handed to the callback as CLI_OPERAND with the word as
                             value; options may follow them; every word after `--` is one */
} cli_words;

/* One option found: its id, its name as the user knows it ("--top", or
 * "-j" when given short) and its value (NULL for no_argument). Returns 0,
 * or -1 with *err saying what is wrong (one line). */
typedef int (*cli_option_fn)(void *ctx, int id, const char *name, const char *value, ic_err *err);

/* Reads argv[1..argc-1] (argv[0]: the command's name, "icost" or "sim",
 * for the messages: "sim: unknown option '--x' (see icost sim --help)").
 * opts ends with a zero entry. *prog is set to the index of the program's
 * first argument, argc when none was given (a `--` with nothing after it is
 * an error). IC_EINPUT with one line on bad usage, or the callback's
 * error.
 * Time complexity: O(argc x options). */
ic_status cli_getopt(int argc, char **argv, const struct option *opts, cli_words words,
                     cli_option_fn fn, void *ctx, int *prog, ic_err *err);

#endif
