/* herdsman's stdbool.h */
#ifndef HERDSMAN_STDBOOL_H
#define HERDSMAN_STDBOOL_H
#define bool _Bool
#define true 1
#define false 0
#endif
