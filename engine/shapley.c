/* shapley.c: exact Shapley shares from the times of all subsets
 * (shapley.h). */
#include "shapley.h"

#include <math.h>

ic_status ic_shapley(const double *t_subset, int ncat, double *phi, ic_err *err) {
  if (ncat < 1 || ncat > IC_SHAPLEY_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "shapley: %d categories (1 to %d)", ncat, IC_SHAPLEY_MAX_CATS);
  const unsigned n = 1u << ncat;
  for (unsigned s = 0; s < n; s++)
    if (!isfinite(t_subset[s]))
      return ic_fail(err, IC_EINPUT, "shapley: needs the time of every subset (subset %u missing)",
                     s);
  /* weight[m] = m! (n-m-1)! / n!, the share of the orders of C in which
     exactly a given m-set comes before k; computed as a product of ratios
     so that no factorial is formed */
  double weight[IC_SHAPLEY_MAX_CATS];
  for (int m = 0; m < ncat; m++) {
    double w = 1.0 / ncat;
    for (int j = 1; j <= m; j++) w *= (double)j / (double)(ncat - j);
    weight[m] = w;
  }
  for (int k = 0; k < ncat; k++) {
    const unsigned bit = 1u << k;
    double sum = 0;
    for (unsigned s = 0; s < n; s++)
      if (!(s & bit)) sum += weight[__builtin_popcount(s)] * (t_subset[s] - t_subset[s | bit]);
    phi[k] = sum;
  }
  return IC_OK;
}
