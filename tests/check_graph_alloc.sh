#!/bin/sh
# graph/ allocates host memory only through loom__malloc and its kin (graph/alloc.c), so that
# test_alloc_failures reaches every allocation site. Usage: check_graph_alloc.sh SOURCE_DIR.
found=$(grep -HnE '(^|[^_[:alnum:]])(malloc|calloc|realloc|strdup|strndup|aligned_alloc)\(' \
        "$1"/graph/*.c | grep -v '^[^:]*/graph/alloc\.c:')
if [ -n "$found" ]; then
    echo "graph/ calls the C allocator directly (use loom__malloc and its kin):"
    echo "$found"
    exit 1
fi
echo "graph/ allocates only through graph/alloc.c"
