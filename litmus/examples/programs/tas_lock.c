/* herdsman: expect sc=safe tso=safe pso=unsafe
   herdsman: unroll 2
   herdsman: reference-slow
   A test-and-test-and-set spinlock for two threads (L. Rudolph, Z. Segall, "Dynamic
   decentralized cache schemes for MIMD parallel processors", ISCA 1984), all accesses
   relaxed and no fences.  A thread spins reading the lock until it is free, then tries
   to take it with an atomic exchange and starts again if another thread took it first;
   it leaves by storing 0.  The exchange is a locked instruction, which x86-TSO orders
   with everything, and TSO keeps the critical section's writes ahead of the releasing
   store: safe under SC and TSO.  Under PSO that store may become visible before the
   critical section's writes, and the next thread sees in_cs = 1.  The retry loop holds
   an exchange, so it is bounded by the unrolling.  See tas_lock_fenced.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int lock;
int in_cs;

void *thread(void *arg)
{
	for (;;) {
		while (atomic_load_explicit(&lock, memory_order_relaxed) != 0)
			;
		if (atomic_exchange_explicit(&lock, 1, memory_order_relaxed) == 0)
			break;
	}
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	atomic_store_explicit(&lock, 0, memory_order_relaxed);
	return 0;
}

int main(void)
{
	pthread_t t0, t1;

	pthread_create(&t0, 0, thread, 0);
	pthread_create(&t1, 0, thread, 0);
	pthread_join(t0, 0);
	pthread_join(t1, 0);
	return 0;
}
