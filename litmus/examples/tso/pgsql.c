/* herdsman: expect sc=safe tso=unsafe
   herdsman: paper-fences 2
   A PostgreSQL-style latch (the interprocess latches of PostgreSQL 9.1, whose use on
   weakly ordered memory was discussed on the pgsql-hackers list in 2011: SetLatch,
   ResetLatch and WaitLatch need barriers), with two processes looping forever.  The
   setter posts work (flag = 1), then sets the latch, doing nothing when the latch is
   already set (SetLatch's shortcut), then waits until the work is taken.  The waiter
   resets the latch, checks for work (taking it if there is some), and otherwise sleeps
   until the latch is set (WaitLatch).  Correct under SC: if the waiter's reset comes
   after the setter's read of the latch, it comes after the work was posted and the
   waiter's check sees the work; if it comes before, the setter reads the latch unset
   and sets it, which wakes the waiter.  Under TSO the setter's flag write may still
   sit in its store buffer when the waiter checks for work, and the waiter's reset in
   its own when the setter reads the latch: the waiter finds no work and sleeps, while
   the setter either finds the latch still set from the last round and skips it, or
   sets it only for the waiter's late reset to clear it.  Either way the waiter sleeps
   on a latch nobody will set while the setter waits for its work to be taken: a lost
   wake-up, a deadlock.  To make it an assertion, the waiter says it sleeps (sleeping =
   1, a ghost variable set before WaitLatch and cleared after), and the setter's wait
   also ends when it sees the waiter asleep on an unset latch; its assertion that the
   work was taken then fails on a lost wake-up (and, as the SC search shows, only
   then).  See pgsql_fenced.c. */
#include <assert.h>
#include <pthread.h>

int latch;      /* the latch: set or not */
int flag;       /* the work posted by the setter */
int sleeping;   /* ghost: the waiter is in WaitLatch */

void *setter(void *arg)
{
	while (1) {
		flag = 1;                       /* post work */
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
