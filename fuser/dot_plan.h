/* fuser/dot_plan.h — DOT dumps of executed plans (LOOM_DUMP_DOT). */
#ifndef LOOM_FUSER_DOT_PLAN_H
#define LOOM_FUSER_DOT_PLAN_H

#include "internal.h"

/* With LOOM_DUMP_DOT=dir (read at the first call), writes the plan for arrays[0..n) to
 * dir/plan_<k>.dot, k counting from 0 in each process; otherwise does nothing. Best effort: a
 * failure is reported on stderr and does not fail the evaluation. Called under the executor's
 * lock, once per evaluation. */
void loom__dump_dot_env(loom_array *const *arrays, int n);

#endif /* LOOM_FUSER_DOT_PLAN_H */
