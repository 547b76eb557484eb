/* herdsman's string.h: memset, memcpy and memmove on memory cells (one access per cell
   of the objects they cover); the string functions are not modelled. */
#ifndef HERDSMAN_STRING_H
#define HERDSMAN_STRING_H
#include <stddef.h>
void *memset(void *dst, int value, size_t size);
void *memcpy(void *dst, const void *src, size_t size);
void *memmove(void *dst, const void *src, size_t size);
#endif
