/* herdsman's stdio.h: output functions do nothing. */
#ifndef HERDSMAN_STDIO_H
#define HERDSMAN_STDIO_H
#ifndef NULL
#define NULL ((void *)0)
#endif
int printf(const char *format, ...);
int puts(const char *s);
#endif
