/* graph/histogram.h — equal-bin histograms and NumPy's bin estimators (docs/unique.md). */
#ifndef LOOM_GRAPH_HISTOGRAM_H
#define LOOM_GRAPH_HISTOGRAM_H

#include "internal.h"

/* The int64 counts of the 1-D t (its dtype the edges' dtype) in nb equal bins from first to
 * last, as np.histogram(t, nb, (first, last)) counts them; data_scalars: first and last are
 * NumPy scalars of t's dtype, not Python floats (the edges are then computed in that dtype).
 * graph/bincount.c. */
loom_array *loom__histogram_counts(const char *fn, loom_array *t, int64_t nb, double first,
                                   double last, bool data_scalars);

/* np.linspace(first, last, nb + 1) computed as NumPy computes it when first and last are NumPy
 * scalars of float dtype dt (a histogram's autodetected range of float16 or float32 data):
 * every step rounded to dt. Edges that do not increase are np.histogram's error ("Too many bins
 * for data range..."). */
loom_array *loom__edges_in_dtype(const char *fn, loom_dtype dt, double first, double last,
                                 int64_t nb);

/* Whether name is one of NumPy's bin estimators; if not, NumPy's error under fn. */
bool loom__histogram_estimator_known(const char *fn, const char *name);

/* What the estimators read of the data x (n elements of dtype dt; bool read as uint8). Values
 * are read as float64, which holds every value of every dtype but int64 and uint64: theirs (min,
 * max, the percentiles' neighbours) are read as int64 (uint64 as its bits). */
typedef struct loom_hist_stats {
    loom_dtype dt;
    int64_t n;
    int64_t lo, hi;  /* min and max of integer data */
    double min, max; /* of float data */
    double std, g1;  /* np.std(x) and doane's skewness, in x's float dtype (float64 for ints) */
    int64_t at[4];   /* positions of the 75th and the 25th percentiles' two neighbours */
    double q[4];     /* the sorted data there (float data) */
    int64_t iq[4];   /* (integer data) */
    int64_t nstone;  /* stone's candidate counts of bins: 1 .. nstone */
    double *stone_sq; /* for each, the sum of its squared counts */
} loom_hist_stats;

/* The bin count of estimator name (known) from statistics s, as NumPy computes it (the rest as
 * loom__histogram_estimate). Returns 0, or -1 with the error under fn. */
int loom__histogram_bins_from_stats(const char *fn, const loom_hist_stats *s, const char *name,
                                    const double *range, double first, double last,
                                    bool widened, int64_t *nbins);

/* NumPy's number of equal bins for estimator name on a, with the outer edges first and last
 * (range, or a's min and max; widened: they were equal and moved 0.5 apart): statistics of a
 * read back (forced evaluations of reason LOOM_EVAL_DATA_DEPENDENT_SHAPE), the width computed
 * as NumPy computes it. Returns 0, or -1 with the error under fn. graph/histogram_bins.c. */
int loom__histogram_estimate(const char *fn, loom_array *a, const char *name,
                             const double *range, double first, double last, bool widened,
                             int64_t *nbins);

#endif
