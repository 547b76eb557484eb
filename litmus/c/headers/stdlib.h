/* herdsman's stdlib.h: declarations only (malloc and free are rejected when called). */
#ifndef HERDSMAN_STDLIB_H
#define HERDSMAN_STDLIB_H
#ifndef NULL
#define NULL ((void *)0)
#endif
typedef unsigned long size_t;
void abort(void);
void exit(int status);
void *malloc(size_t size);
void *calloc(size_t count, size_t size);
void free(void *p);
#endif
