/* herdsman's stdint.h: integers are unbounded in herdsman (no overflow modelling). */
#ifndef HERDSMAN_STDINT_H
#define HERDSMAN_STDINT_H
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
#endif
