/* herdsman: expect sc=safe tso=safe
   herdsman: paper-fences 4
   Lamport's bakery of lamport.c (two processes, tickets capped at CAP) with two fences
   in each process: after choosing = 1, so that the other sees this process choosing
   before it reads the other's ticket, and after choosing = 0, so that the ticket is in
   memory before the waiting reads of the other's choosing flag and ticket.  A ticket
   dropped to 0 at the exit and still in the buffer only makes the other wait longer.
   Safe under SC and TSO, with the paper's 4 fences.  See lamport.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

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
		atomic_thread_fence(memory_order_seq_cst);
		do {                            /* the cap: wait while the other holds CAP */
			other = ticket1;
		} while (other >= CAP);
		mine = other + 1;
		ticket0 = mine;
		choosing0 = 0;
		atomic_thread_fence(memory_order_seq_cst);
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
		atomic_thread_fence(memory_order_seq_cst);
		do {                            /* the cap: wait while the other holds CAP */
			other = ticket0;
		} while (other >= CAP);
		mine = other + 1;
		ticket1 = mine;
		choosing1 = 0;
		atomic_thread_fence(memory_order_seq_cst);
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
