/* shapley.h: exact Shapley shares of a category list from t(S).
 *
 * For categories C (n of them) and the time t(S) of every subset S of C
 * (bit k of S stands for the k-th category), the Shapley share of the k-th
 * category is its marginal cost averaged over all n! orders of C:
 *
 *   phi_k = sum over S not holding k of |S|! (n-|S|-1)! / n! * (t(S) - t(S+k))
 *
 * One order-independent number per category; the shares sum to
 * cost(C) = t({}) - t(C) exactly (up to rounding), and phi_k is also the
 * sum over the subsets U holding k of icost(U) / |U| (each interaction is
 * split equally among its members). It needs t(S) of all 2^n subsets. */
#ifndef IC_SHAPLEY_H
#define IC_SHAPLEY_H

#include "ic_err.h"

#define IC_SHAPLEY_MAX_CATS 16

/* phi[0 .. ncat) from t_subset[0 .. 2^ncat). IC_EINPUT if ncat is out of
 * 1 .. IC_SHAPLEY_MAX_CATS or some t(S) is not a finite number (a subset
 * that was not solved). Time complexity: O(ncat * 2^ncat). */
ic_status ic_shapley(const double *t_subset, int ncat, double *phi, ic_err *err);

#endif
