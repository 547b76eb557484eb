/* herdsman: expect sc=safe tso=safe pso=unsafe
   herdsman: reference-slow
   A ticket lock for two threads (D. P. Reed, R. K. Kanodia, "Synchronization with
   eventcounts and sequencers", CACM 22(2), 1979; the "ticket lock" of J. M.
   Mellor-Crummey, M. L. Scott, "Algorithms for scalable synchronization on shared-memory
   multiprocessors", ACM TOCS 9(1), 1991), all accesses relaxed and no fences.  A thread
   takes a ticket with an atomic fetch-and-add, waits until now_serving reaches it, and
   leaves by storing the next number.  The fetch-and-add is a locked instruction, which
   x86-TSO orders with everything, and TSO keeps the critical section's writes ahead of
   the releasing store: safe under SC and TSO.  Under PSO that releasing store may become
   visible before the critical section's writes, and the next thread sees in_cs = 1.
   See ticket_lock_fenced.c. */
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
