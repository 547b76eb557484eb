/* herdsman's inttypes.h */
#ifndef HERDSMAN_INTTYPES_H
#define HERDSMAN_INTTYPES_H
#include <stdint.h>
#endif
