/* One-dimensional complex double FFTs for the host device (exec/host_fft.c), on KISS FFT's
 * header-only C++ template: C++ because the double-precision transform exists only as that
 * template (Debian's C build of KISS FFT is float only). */
#include <kissfft/kissfft.hh>

#include <complex>
#include <new>

extern "C" {
void *loom__kiss_new(long long n, int inverse);
int loom__kiss_run(const void *plan, const double *in, double *out);
void loom__kiss_free(void *plan);
}

/* NULL when memory runs out: no exception crosses into C. */
void *loom__kiss_new(long long n, int inverse)
{
    try {
        return new kissfft<double>((std::size_t)n, inverse != 0);
    } catch (...) {
        return nullptr;
    }
}

/* in and out: n interleaved (re, im) pairs each, not overlapping (std::complex<double> is
 * specified to have the layout of double[2]). 0, or -1 when memory runs out (the transform
 * of a length with a prime factor above 5 takes scratch). */
int loom__kiss_run(const void *plan, const double *in, double *out)
{
    try {
        static_cast<const kissfft<double> *>(plan)->transform(
            reinterpret_cast<const std::complex<double> *>(in),
            reinterpret_cast<std::complex<double> *>(out));
        return 0;
    } catch (...) {
        return -1;
    }
}

void loom__kiss_free(void *plan)
{
    delete static_cast<kissfft<double> *>(plan);
}
