/* herdsman's stdlib.h: what herdsman models of the C library's general utilities.
   malloc, calloc, aligned_alloc and free manage heap allocations (an allocation is no
   shared-memory event; use after free and double free are errors); abort ends the
   program with an error; exit ends it. */
#ifndef HERDSMAN_STDLIB_H
#define HERDSMAN_STDLIB_H
#include <stddef.h>
#include <stdint.h>
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
void abort(void);
void exit(int status);
void *malloc(size_t size);
void *calloc(size_t count, size_t size);
void *aligned_alloc(size_t alignment, size_t size);
void free(void *p);
int abs(int v);
long labs(long v);
#endif
