/* Reading the tab-separated tables that tools/gen_*_cases.py write: one case a line, binary
 * data in hex, strings with "\\" and newlines escaped. Include after _POSIX_C_SOURCE 200809L. */
#ifndef LOOM_TEST_TABLE_LINES_H
#define LOOM_TEST_TABLE_LINES_H

#include "check.h"

#include <stdlib.h>
#include <string.h>

/* Calls run(line) for each line of the file in tests/data; returns the number of lines. */
static inline int table_for_each_line(const char *path, void (*run)(char *line))
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int lines = 0;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        run(line);
        lines++;
    }
    free(line);
    fclose(f);
    return lines;
}

/* Splits line at tabs into at most n fields; returns how many there were. */
static inline int table_fields(char *line, char **field, int n)
{
    int k = 0;
    for (char *p = line; k < n;) {
        field[k++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return k;
}

/* The bytes a hex string stands for ("-": none), malloc'd. */
static inline unsigned char *table_hex(const char *s)
{
    size_t n = strcmp(s, "-") == 0 ? 0 : strlen(s) / 2;
    unsigned char *data = malloc(n + 1);
    for (size_t i = 0; data && i < n; i++) {
        int hi = s[2 * i] <= '9' ? s[2 * i] - '0' : s[2 * i] - 'a' + 10;
        int lo = s[2 * i + 1] <= '9' ? s[2 * i + 1] - '0' : s[2 * i + 1] - 'a' + 10;
        data[i] = (unsigned char)(hi << 4 | lo);
    }
    return data;
}

/* A comma-separated shape ("-": 0-d); returns ndim. */
static inline int table_shape(const char *s, int64_t *shape)
{
    int ndim = 0;
    if (strcmp(s, "-") == 0)
        return 0;
    for (char *p = (char *)s; *p && ndim < LOOM_MAXDIMS; p += *p == ',')
        shape[ndim++] = strtoll(p, &p, 10);
    return ndim;
}

/* Undoes the escaping of "\\" and newlines, in place. */
static inline char *table_unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r == '\\' && r[1]) {
            r++;
            *w++ = *r == 'n' ? '\n' : *r;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return s;
}

#endif
