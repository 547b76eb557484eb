/* herdsman's stddef.h */
#ifndef HERDSMAN_STDDEF_H
#define HERDSMAN_STDDEF_H
#ifndef NULL
#define NULL ((void *)0)
#endif
typedef unsigned long size_t;
typedef long ptrdiff_t;
/* offsetof(type, member) is known to the parser */
#endif
