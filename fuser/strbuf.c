#include "strbuf.h"

#include "graph/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for `more` bytes plus a terminator; false (and sticky failure) when memory runs out. */
static bool reserve(loom_strbuf *sb, size_t more)
{
    if (sb->failed)
        return false;
    if (sb->len + more + 1 <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap * 2 : 1024;
    while (cap < sb->len + more + 1)
        cap *= 2;
    char *grown = loom__realloc(sb->data, cap);
    if (!grown) {
        sb->failed = true;
        return false;
    }
    sb->data = grown;
    sb->cap = cap;
    return true;
}

void loom__sb_append(loom_strbuf *sb, const void *p, size_t n)
{
    if (!reserve(sb, n))
        return;
    memcpy(sb->data + sb->len, p, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void loom__sb_printf(loom_strbuf *sb, const char *fmt, ...)
{
    if (sb->failed)
        return;
    for (;;) {
        size_t room = sb->cap - sb->len;
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(sb->data ? sb->data + sb->len : NULL, sb->data ? room : 0, fmt, ap);
        va_end(ap);
        if (w < 0) {
            sb->failed = true;
            return;
        }
        if (sb->data && (size_t)w < room) {
            sb->len += (size_t)w;
            return;
        }
        if (!reserve(sb, (size_t)w))
            return;
    }
}

char *loom__sb_take(loom_strbuf *sb)
{
    char *s = sb->failed ? NULL : sb->data;
    if (sb->failed)
        free(sb->data);
    *sb = (loom_strbuf){0};
    return s;
}

void loom__sb_free(loom_strbuf *sb)
{
    free(sb->data);
    *sb = (loom_strbuf){0};
}
