#!/bin/sh
# graph/ and fuser/ allocate host memory only through loom__malloc and its kin (graph/alloc.c),
# so that test_alloc_failures reaches every allocation site. Usage: check_alloc_sites.sh SOURCE_DIR.
found=$(grep -HnE '(^|[^_[:alnum:]])(malloc|calloc|realloc|strdup|strndup|aligned_alloc)\(' \
        "$1"/graph/*.c "$1"/fuser/*.c | grep -v '^[^:]*/graph/alloc\.c:')
if [ -n "$found" ]; then
    echo "graph/ or fuser/ calls the C allocator directly (use loom__malloc and its kin):"
    echo "$found"
    exit 1
fi
echo "graph/ and fuser/ allocate only through graph/alloc.c"
