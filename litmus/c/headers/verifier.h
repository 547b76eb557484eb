/* herdsman's verifier.h: the same interface as genmc.h. */
#include <genmc.h>
