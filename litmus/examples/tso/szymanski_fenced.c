/* herdsman: expect sc=safe tso=safe
   herdsman: paper-fences 4
   Szymanski's algorithm of szymanski.c with two fences in each process: after raising
   its flag to 1 (before waiting for the door to open) and after stepping into the
   doorway (flag 3, before looking whether the other wants in), the store-load pairs
   the waiting room depends on.  The later flag writes (2, 4, 0) need none.  Safe
   under SC and TSO, with the paper's 4 fences.  (Three suffice in this two-process
   program: p1's fence after flag1 = 1 can go; without p0's after flag0 = 3 it fails,
   but only with buffers of 4.)  See szymanski.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int flag0;
int flag1;
int in_cs;

void *p0(void *arg)
{
	int f;

	while (1) {
		flag0 = 1;                      /* want in */
		atomic_thread_fence(memory_order_seq_cst);
		while (flag1 >= 3)              /* wait for the door to open */
			;
		flag0 = 3;                      /* in the doorway */
		atomic_thread_fence(memory_order_seq_cst);
		if (flag1 == 1) {               /* the other wants in: wait in the room */
			flag0 = 2;
			while (flag1 != 4)
				;
		}
		flag0 = 4;                      /* close the door */
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		do {                            /* wait for the other to leave room and doorway */
			f = flag1;
		} while (f == 2 || f == 3);
		flag0 = 0;
	}
	return 0;
}

void *p1(void *arg)
{
	while (1) {
		flag1 = 1;                      /* want in */
		atomic_thread_fence(memory_order_seq_cst);
		while (flag0 >= 3)              /* wait for the door to open */
			;
		flag1 = 3;                      /* in the doorway */
		atomic_thread_fence(memory_order_seq_cst);
		if (flag0 == 1) {               /* the other wants in: wait in the room */
			flag1 = 2;
			while (flag0 != 4)
				;
		}
		flag1 = 4;                      /* close the door */
		while (flag0 >= 2)              /* the lower number goes first */
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag1 = 0;
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
