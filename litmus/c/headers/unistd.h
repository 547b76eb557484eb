/* herdsman's unistd.h: nothing of it is modelled (a call is an error naming it), but a
   program may include it. */
#ifndef HERDSMAN_UNISTD_H
#define HERDSMAN_UNISTD_H
#include <stddef.h>
#endif
