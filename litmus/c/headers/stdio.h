/* herdsman's stdio.h: output functions do nothing. */
#ifndef HERDSMAN_STDIO_H
#define HERDSMAN_STDIO_H
#include <stddef.h>
typedef struct __herdsman_file FILE;
extern FILE *stdout;
extern FILE *stderr;
int printf(const char *format, ...);
int fprintf(FILE *stream, const char *format, ...);
int puts(const char *s);
int putchar(int c);
int fflush(FILE *stream);
#endif
