/* x_matmul R: R times C += A B for 96 x 96 doubles, i-k-j order (fused
 * multiply-adds, a row of B streamed from the L2 per k). An extra
 * workload. */
#include <stdio.h>
#include <stdlib.h>

#define N 96
static double a[N][N], b[N][N], c[N][N];

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = i + j * 0.5;
      b[i][j] = i - j * 0.25;
    }
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < N; i++)
      for (int k = 0; k < N; k++) {
        double x = a[i][k];
        for (int j = 0; j < N; j++) c[i][j] += x * b[k][j];
      }
  printf("%f\n", c[N / 2][N / 3]);
  return 0;
}
