/* herdsman: expect sc=safe tso=unsafe
   herdsman: paper-fences 4
   Lamport's bakery algorithm for two processes (L. Lamport, "A new solution of
   Dijkstra's concurrent programming problem", CACM 17(8), 1974), each looping forever.
   A process announces that it is choosing, takes a ticket one more than the other's,
   stops choosing, waits until the other is not choosing, then waits while the other
   holds a nonzero ticket that goes first (smaller, or equal with the smaller process
   number: p0 wins ties); it leaves by dropping its ticket to 0.
   Finite data: the tickets of the bakery grow without bound when the processes keep
   overtaking each other, so they are capped at CAP (2 unless -D CAP=...): a process
   whose ticket would exceed CAP (the other holds CAP) waits, re-reading the other's
   ticket, until it drops, as the bakery of a shop with CAP numbers would.  The wait
   only delays a process, so the algorithm's correctness argument is unchanged.
   Correct under SC.  Under TSO a process's choosing = 1 may still sit in its store
   buffer while it reads the other's ticket: the other, not seeing it choose, can take
   the same or a smaller ticket, read this process's ticket as 0 and enter, while this
   process, holding the smaller ticket or winning the tie, enters too (the same happens
   when the ticket itself is still buffered at the waiting reads); the in_cs check
   catches it.  See lamport_fenced.c. */
#include <assert.h>
#include <pthread.h>

#ifndef CAP
#define CAP 2
#endif

int choosing0;
int choosing1;
int ticket0;
int ticket1;
int in_cs;

void *p0(void *arg)
{
	int other, mine;

	while (1) {
		choosing0 = 1;
		do {                            /* the cap: wait while the other holds CAP */
			other = ticket1;
		} while (other >= CAP);
		mine = other + 1;
		ticket0 = mine;
		choosing0 = 0;
		while (choosing1 == 1)
			;
		do {                            /* wait while the other goes first */
			other = ticket1;
		} while (other != 0 && other < mine);
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		ticket0 = 0;
	}
	return 0;
}

void *p1(void *arg)
{
	int other, mine;

	while (1) {
		choosing1 = 1;
		do {                            /* the cap: wait while the other holds CAP */
			other = ticket0;
		} while (other >= CAP);
		mine = other + 1;
		ticket1 = mine;
		choosing1 = 0;
		while (choosing0 == 1)
			;
		do {                            /* wait while the other goes first */
			other = ticket0;
		} while (other != 0 && other <= mine);
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		ticket1 = 0;
	}
	return 0;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, 0, p0, 0);
	pthread_create(&b, 0, p1, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	return 0;
}
