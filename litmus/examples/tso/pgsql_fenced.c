/* herdsman: expect sc=safe tso=safe
   herdsman: paper-fences 2
   The PostgreSQL-style latch of pgsql.c with one fence in each process, the barriers
   the 2011 pgsql-hackers discussion called for: in the setter between posting the
   work and SetLatch's read of the latch, in the waiter between ResetLatch and the
   check for work.  Then the setter's read of the latch and the waiter's check
   cannot both miss the other's write: either the setter sees the reset latch and sets
   it, waking the waiter, or the waiter sees the work and takes it.  No lost wake-up.
   Safe under SC and TSO, with the paper's 2 fences.  See pgsql.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int latch;      /* the latch: set or not */
int flag;       /* the work posted by the setter */
int sleeping;   /* ghost: the waiter is in WaitLatch */

void *setter(void *arg)
{
	while (1) {
		flag = 1;                       /* post work */
		atomic_thread_fence(memory_order_seq_cst);
		if (latch == 0)                 /* SetLatch: nothing to do if it is set */
			latch = 1;
		/* wait until the work is taken, or the waiter sleeps on an unset latch */
		while (flag == 1 && (latch == 1 || sleeping == 0))
			;
		assert(flag == 0);              /* no lost wake-up */
	}
	return 0;
}

void *waiter(void *arg)
{
	while (1) {
		latch = 0;                      /* ResetLatch */
		atomic_thread_fence(memory_order_seq_cst);
		if (flag == 1) {
			flag = 0;               /* take the work */
		} else {
			sleeping = 1;           /* WaitLatch: sleep until the latch is set */
			while (latch == 0)
				;
			sleeping = 0;
		}
	}
	return 0;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, 0, setter, 0);
	pthread_create(&b, 0, waiter, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	return 0;
}
