/* x_interp N: a stack-machine interpreter (a switch: an indirect jump
 * through a table per bytecode) running a loop of N iterations. An extra
 * workload. */
#include <stdio.h>
#include <stdlib.h>

enum { PUSH, ADD, SUB, MUL, DUP, SWAP, JNZ, DEC, POP, XOR, HALT };

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200000;
  int prog[] = {PUSH, 7, PUSH, n, SWAP, PUSH, 3, MUL, PUSH, 5, ADD, PUSH, 1023, XOR, SWAP, DEC,
                DUP, JNZ, 4, HALT};
  long st[64];
  int sp = 0, pc = 0;
  long steps = 0;
  for (;;) {
    steps++;
    switch (prog[pc++]) {
    case PUSH: st[sp++] = prog[pc++]; break;
    case ADD: sp--; st[sp - 1] += st[sp]; break;
    case SUB: sp--; st[sp - 1] -= st[sp]; break;
    case MUL: sp--; st[sp - 1] *= st[sp]; break;
    case XOR: sp--; st[sp - 1] ^= st[sp]; break;
    case DUP: st[sp] = st[sp - 1]; sp++; break;
    case SWAP: { long t = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = t; } break;
    case DEC: st[sp - 1]--; break;
    case POP: sp--; break;
    case JNZ: { int t = prog[pc++]; if (st[--sp]) pc = t; } break;
    case HALT: printf("%ld %ld\n", st[0], steps); return 0;
    default: abort();
    }
  }
}
