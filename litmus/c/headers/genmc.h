/* herdsman's genmc.h: GenMC's and SV-COMP's verifier intrinsics.  __VERIFIER_nondet_int
   is declared so that calling it gives a clear "unsupported" error (values only come from
   reads of memory). */
#ifndef HERDSMAN_GENMC_H
#define HERDSMAN_GENMC_H
void __VERIFIER_assume(int condition);
int __VERIFIER_nondet_int(void);
void assume(int condition);
#endif
