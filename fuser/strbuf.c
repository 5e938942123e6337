#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
        size_t cap = sb->cap ? sb->cap * 2 : 1024;
        while (cap < sb->len + (size_t)w + 1)
            cap *= 2;
        char *grown = realloc(sb->data, cap);
        if (!grown) {
            sb->failed = true;
            return;
        }
        sb->data = grown;
        sb->cap = cap;
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
