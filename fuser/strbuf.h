/* A growable string for generated source. Allocation failure is sticky and checked once. */
#ifndef LOOM_FUSER_STRBUF_H
#define LOOM_FUSER_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct loom_strbuf {
    char *data;
    size_t len, cap;
    bool failed;
} loom_strbuf;

void loom__sb_printf(loom_strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends n bytes (binary-safe). */
void loom__sb_append(loom_strbuf *sb, const void *p, size_t n);
/* Returns the string (caller frees) or NULL if any append failed; resets sb. */
char *loom__sb_take(loom_strbuf *sb);
void loom__sb_free(loom_strbuf *sb);

#endif
