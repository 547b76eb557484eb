/* herdsman: expect sc=safe tso=safe pso=safe
   herdsman: unroll 2
   herdsman: reference-slow
   A test-and-test-and-set spinlock for two threads (L. Rudolph, Z. Segall, "Dynamic
   decentralized cache schemes for MIMD parallel processors", ISCA 1984) with a fence
   before the releasing store, so that under PSO too the critical section's writes are
   visible before the lock is free (a release store, memory_order_release, would do the
   same).  Safe under SC, TSO and PSO.  See tas_lock.c. */
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
	atomic_thread_fence(memory_order_seq_cst);
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
