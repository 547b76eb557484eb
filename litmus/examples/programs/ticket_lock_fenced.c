/* herdsman: expect sc=safe tso=safe pso=safe
   herdsman: reference-slow
   A ticket lock for two threads (D. P. Reed, R. K. Kanodia, "Synchronization with
   eventcounts and sequencers", CACM 22(2), 1979; the "ticket lock" of J. M.
   Mellor-Crummey, M. L. Scott, "Algorithms for scalable synchronization on shared-memory
   multiprocessors", ACM TOCS 9(1), 1991) with a fence before the releasing store, so that
   under PSO too the critical section's writes are visible before the lock is passed on
   (a release store, memory_order_release, would do the same).  Safe under SC, TSO and
   PSO.  See ticket_lock.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int next_ticket;
atomic_int now_serving;
int in_cs;

void *thread(void *arg)
{
	int mine = atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);

	while (atomic_load_explicit(&now_serving, memory_order_relaxed) != mine)
		;
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&now_serving, mine + 1, memory_order_relaxed);
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
