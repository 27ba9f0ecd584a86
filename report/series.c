/* The report's bounded series (report.h, tp_series_downsample). */
#include "report/series.h"

size_t tp_series_downsample(size_t n, size_t max, uint64_t (*val)(void *ctx, size_t i),
                            void (*move)(void *ctx, size_t dst, size_t src), void *ctx)
{
    if (n <= max)
        return n;
    if (max < 2)
        return 0;
    size_t nb = max / 2, out = 0;
    for (size_t b = 0; b < nb; b++) {
        /* stretch b is [lo, hi): every stretch has n/nb points, give or take one */
        size_t lo = b * n / nb, hi = (b + 1) * n / nb, mx = lo, mn = lo;
        for (size_t i = lo + 1; i < hi; i++) {
            if (val(ctx, i) > val(ctx, mx))
                mx = i;
            if (val(ctx, i) < val(ctx, mn))
                mn = i;
        }
        /* out <= lo: a point is never overwritten before its stretch is read */
        size_t first = mn < mx ? mn : mx, second = mn < mx ? mx : mn;
        move(ctx, out++, first);
        if (second != first)
            move(ctx, out++, second);
    }
    return out;
}
