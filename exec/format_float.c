/* NumPy's float formatting: Dragon4's shortest round-trip digits (unique=True) cut at a
 * precision, and FloatingFormat's choice between positional and scientific notation. */
#include "format.h"

#include "../graph/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A finite value as decimal digits: |v| = d[0].d[1]d[2]... * 10^exp, no trailing zeros. */
typedef struct decimal {
    char d[400];
    int n;
    int exp;
    bool neg;
} decimal;

/* v rounded to nearest-even in a binary format of `bits` significant bits whose smallest
 * subnormal is 2^min_quantum (overflow is not modelled: the result only has to differ). */
static double round_to_bits(double v, int bits, int min_quantum)
{
    if (v == 0 || !isfinite(v))
        return v;
    int e;
    frexp(v, &e);
    int q = e - bits;
    if (q < min_quantum)
        q = min_quantum;
    return ldexp(nearbyint(ldexp(v, -q)), q);
}

static double round_to_dtype(double v, loom_dtype dt)
{
    switch (dt) {
    case LOOM_FLOAT16: return fabs(v) >= 65520.0 ? copysign(INFINITY, v) : round_to_bits(v, 11, -24);
    case LOOM_BFLOAT16: return round_to_bits(v, 8, -133);
    case LOOM_FLOAT32: case LOOM_COMPLEX64: return (float)v;
    default: return v;
    }
}

/* np.finfo(dt).precision: decimal digits the dtype holds. */
static int finfo_precision(loom_dtype dt)
{
    switch (dt) {
    case LOOM_FLOAT16: return 3;
    case LOOM_BFLOAT16: return 2;
    case LOOM_FLOAT32: case LOOM_COMPLEX64: return 6;
    default: return 15;
    }
}

/* Reads printf's "%e" or "%f" output ("-0.00125", "1.25e-03") into digits and an exponent. */
static void parse_decimal(const char *s, decimal *out)
{
    out->neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    int point = -1, n = 0, first = -1, pos = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s == '.') {
            point = pos;
            continue;
        }
        if (first < 0 && *s != '0')
            first = pos;
        if (first >= 0 && n < (int)sizeof out->d - 1)
            out->d[n++] = *s;
        pos++;
    }
    if (point < 0)
        point = pos;
    int e10 = *s == 'e' ? atoi(s + 1) : 0;
    if (first < 0) {
        out->d[0] = '0';
        out->n = 1;
        out->exp = 0;
        return;
    }
    while (n > 1 && out->d[n - 1] == '0')
        n--;
    out->d[n] = '\0';
    out->n = n;
    out->exp = point - 1 - first + e10;
}

static bool reads_back(const char *text, double v, loom_dtype dt)
{
    double back = (dt == LOOM_FLOAT32 || dt == LOOM_COMPLEX64) ? (double)strtof(text, NULL)
                                                                : strtod(text, NULL);
    return round_to_dtype(back, dt) == v;
}

/* The shortest digits that read back as v in dtype dt; among those, the closest to v. The
 * correctly rounded digits of each length come first; next to a power of two, where the
 * values that read back reach further on one side, a neighbour of them may read back when they
 * do not. */
static void shortest(double v, loom_dtype dt, decimal *out)
{
    char buf[64], best[64] = "";
    for (int digits = 1; digits <= 17 && !*best; digits++) {
        snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
        if (reads_back(buf, v, dt)) {
            snprintf(best, sizeof best, "%s", buf);
            break;
        }
        decimal d;
        parse_decimal(buf, &d);
        long long m = 0;
        for (int i = 0; i < digits; i++)
            m = m * 10 + (i < d.n ? d.d[i] - '0' : 0);
        double best_gap = INFINITY;
        for (int step = -1; step <= 1; step += 2) {
            char cand[64];
            snprintf(cand, sizeof cand, "%s%llde%d", signbit(v) ? "-" : "", m + step,
                     d.exp - digits + 1);
            double gap = fabs(strtod(cand, NULL) - v);
            if (m + step > 0 && reads_back(cand, v, dt) && gap < best_gap) {
                best_gap = gap;
                snprintf(best, sizeof best, "%s", cand);
            }
        }
    }
    parse_decimal(*best ? best : buf, out);
    out->neg = signbit(v) != 0;
}

/* Dragon4 with unique=True and a cutoff: the shortest digits, or when they reach past the
 * cutoff the exact value correctly rounded there. Positional cuts `precision` digits after the
 * point, scientific `precision` digits after the first; a negative precision cuts nothing. */
static void dragon4(double v, loom_dtype dt, bool scientific, int precision, decimal *out)
{
    shortest(v, dt, out);
    int after_point = scientific ? out->n - 1 : out->n - 1 - out->exp;
    if (precision < 0 || after_point <= precision)
        return;
    char buf[sizeof out->d + 16];
    snprintf(buf, sizeof buf, scientific ? "%.*e" : "%.*f", precision, v);
    parse_decimal(buf, out);
    out->neg = signbit(v) != 0;
}

static void pad(loom_strbuf *sb, int n)
{
    for (int i = 0; i < n; i++)
        loom__sb_append(sb, " ", 1);
}

/* The integer part with its sign, and the fraction, of a positional decimal. */
static void positional_parts(const decimal *x, bool sign_plus, char *ip, size_t ip_cap, char *fp,
                             size_t fp_cap)
{
    size_t k = 0;
    if (x->neg)
        ip[k++] = '-';
    else if (sign_plus)
        ip[k++] = '+';
    if (x->exp < 0)
        ip[k++] = '0';
    for (int i = 0; i <= x->exp && k + 1 < ip_cap; i++)
        ip[k++] = i < x->n ? x->d[i] : '0';
    ip[k] = '\0';
    k = 0;
    for (int i = -1; i > x->exp && k + 1 < fp_cap; i--)
        fp[k++] = '0';
    for (int i = x->exp < 0 ? 0 : x->exp + 1; i < x->n && k + 1 < fp_cap; i++)
        fp[k++] = x->d[i];
    fp[k] = '\0';
}

/* The mantissa's integer part (sign and first digit), fraction and exponent digits. */
static void scientific_parts(const decimal *x, bool sign_plus, char *ip, char *fp, size_t fp_cap,
                             int *exp_len)
{
    size_t k = 0;
    if (x->neg)
        ip[k++] = '-';
    else if (sign_plus)
        ip[k++] = '+';
    ip[k++] = x->d[0];
    ip[k] = '\0';
    k = 0;
    for (int i = 1; i < x->n && k + 1 < fp_cap; i++)
        fp[k++] = x->d[i];
    fp[k] = '\0';
    int a = abs(x->exp);
    *exp_len = a >= 100 ? 3 : 2;
}

void loom__float_format_fill(loom__float_format *f, const double *values, int64_t n,
                             loom_dtype dt, const loom_printoptions *opt, bool sign_plus)
{
    memset(f, 0, sizeof *f);
    f->dtype = dt;
    f->sign_plus = sign_plus;
    f->precision = opt->precision;
    f->exp_size = -1;

    double max_val = 0, min_val = INFINITY;
    int64_t finite = 0;
    bool nonfinite = false, neginf = false;
    for (int64_t i = 0; i < n; i++) {
        double v = values[i];
        if (!isfinite(v)) {
            nonfinite = true;
            neginf |= v < 0;
            continue;
        }
        finite++;
        if (v != 0) {
            max_val = fmax(max_val, fabs(v));
            min_val = fmin(min_val, fabs(v));
        }
    }
    /* NumPy compares in the values' dtype (NEP 50: the constants become that dtype). */
    if (max_val > 0) {
        double cutoff = round_to_dtype(pow(10.0, finfo_precision(dt) < 8 ? finfo_precision(dt) : 8), dt);
        double ratio = round_to_dtype(max_val / min_val, dt);
        f->exp_format = max_val >= cutoff ||
                        (!opt->suppress && (min_val < round_to_dtype(1e-4, dt) || ratio > 1000.0));
    }

    if (finite && f->exp_format) {
        int max_frac = 0, max_int = 0, max_exp = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!isfinite(values[i]))
                continue;
            decimal x;
            dragon4(values[i], dt, true, opt->precision, &x);
            char ip[8], fp[sizeof x.d];
            int exp_len;
            scientific_parts(&x, sign_plus, ip, fp, sizeof fp, &exp_len);
            max_int = (int)strlen(ip) > max_int ? (int)strlen(ip) : max_int;
            max_frac = (int)strlen(fp) > max_frac ? (int)strlen(fp) : max_frac;
            max_exp = exp_len > max_exp ? exp_len : max_exp;
        }
        f->exp_size = max_exp;
        f->precision = f->min_digits = max_frac;
        f->pad_left = max_int;
        f->pad_right = f->exp_size + 2 + f->precision;
    } else if (finite) {
        int max_frac = 0, max_int = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!isfinite(values[i]))
                continue;
            decimal x;
            dragon4(values[i], dt, false, opt->precision, &x);
            char ip[sizeof x.d + 2], fp[sizeof x.d + 400];
            positional_parts(&x, sign_plus, ip, sizeof ip, fp, sizeof fp);
            max_int = (int)strlen(ip) > max_int ? (int)strlen(ip) : max_int;
            max_frac = (int)strlen(fp) > max_frac ? (int)strlen(fp) : max_frac;
        }
        f->pad_left = max_int;
        f->pad_right = max_frac;
        f->min_digits = 0;
    }

    if (nonfinite) {
        int offset = f->pad_right + 1; /* the point */
        int with_sign = 3 + (sign_plus || neginf);
        if (f->pad_left < 3 - offset)
            f->pad_left = 3 - offset;
        if (f->pad_left < with_sign - offset)
            f->pad_left = with_sign - offset;
    }
}

void loom__float_format_write(const loom__float_format *f, double v, loom_strbuf *sb)
{
    if (!isfinite(v)) {
        const char *s = isnan(v) ? (f->sign_plus ? "+nan" : "nan")
                        : v < 0  ? "-inf"
                                 : (f->sign_plus ? "+inf" : "inf");
        pad(sb, f->pad_left + f->pad_right + 1 - (int)strlen(s));
        loom__sb_printf(sb, "%s", s);
        return;
    }
    decimal x;
    dragon4(v, f->dtype, f->exp_format, f->precision, &x);
    if (f->exp_format && x.n - 1 < f->min_digits) {
        /* Digits past the shortest ones, up to min_digits, are the exact value's, rounded. */
        char buf[sizeof x.d + 16];
        snprintf(buf, sizeof buf, "%.*e", f->min_digits, v);
        parse_decimal(buf, &x);
        x.neg = signbit(v) != 0;
    }
    char ip[sizeof x.d + 2], fp[sizeof x.d + 400];
    if (f->exp_format) {
        int exp_len;
        scientific_parts(&x, f->sign_plus, ip, fp, sizeof fp, &exp_len);
    } else {
        positional_parts(&x, f->sign_plus, ip, sizeof ip, fp, sizeof fp);
    }
    int frac = (int)strlen(fp);
    pad(sb, f->pad_left - (int)strlen(ip));
    loom__sb_printf(sb, "%s", ip);
    loom__sb_append(sb, ".", 1);
    loom__sb_printf(sb, "%s", fp);
    for (int i = frac; i < f->min_digits; i++)
        loom__sb_append(sb, "0", 1);
    int written = frac > f->min_digits ? frac : f->min_digits;
    if (f->exp_format) {
        int digits = f->exp_size > 2 ? f->exp_size : 2;
        loom__sb_printf(sb, "e%c%0*d", x.exp < 0 ? '-' : '+', digits, abs(x.exp));
    } else {
        pad(sb, f->pad_right - written);
    }
}

void loom__float_scalar_str(double v, loom_dtype dt, bool sign_plus, bool trim_zero_point,
                            loom_strbuf *sb)
{
    if (isnan(v)) {
        loom__sb_printf(sb, "%snan", sign_plus ? "+" : "");
        return;
    }
    if (isinf(v)) {
        loom__sb_printf(sb, "%sinf", v < 0 ? "-" : sign_plus ? "+" : "");
        return;
    }
    /* NumPy's scalar str is positional from 1e-4 (compared exactly) up to 1e16 for float64 and
     * 10**finfo.precision for the narrower dtypes. */
    double upper = finfo_precision(dt) >= 15 ? 1e16 : pow(10.0, finfo_precision(dt));
    bool positional = v == 0 || (fabs(v) < upper && (long double)fabs(v) >= 1e-4L);
    decimal x;
    dragon4(v, dt, !positional, -1, &x);
    char ip[sizeof x.d + 2], fp[sizeof x.d + 400];
    if (positional) {
        positional_parts(&x, sign_plus, ip, sizeof ip, fp, sizeof fp);
        loom__sb_printf(sb, "%s", ip);
        if (*fp)
            loom__sb_printf(sb, ".%s", fp);
        else if (!trim_zero_point)
            loom__sb_printf(sb, ".0");
    } else {
        int exp_len;
        scientific_parts(&x, sign_plus, ip, fp, sizeof fp, &exp_len);
        loom__sb_printf(sb, "%s%s%s", ip, *fp ? "." : "", fp);
        loom__sb_printf(sb, "e%c%02d", x.exp < 0 ? '-' : '+', abs(x.exp));
    }
}

double loom__format_real(const void *data, loom_dtype dt, int64_t i)
{
    return loom__host_to_double((const char *)data + i * (int64_t)loom_dtype_size(dt), dt);
}

double loom__format_imag(const void *data, loom_dtype dt, int64_t i)
{
    size_t part = loom_dtype_size(dt) / 2;
    return loom__host_to_double((const char *)data + i * (int64_t)loom_dtype_size(dt) + part, dt);
}
