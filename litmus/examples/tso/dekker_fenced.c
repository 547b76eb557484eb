/* herdsman: expect sc=safe tso=safe
   herdsman: paper-fences 2
   Dekker's algorithm of dekker.c with one fence in each process, after raising its
   flag (A) and before reading the other's: a process reads the other's flag only with
   its own raised flag in memory.  Every path to a read of the other's flag goes
   through A (a process that backs off starts again at A, as in EWD 123), so one fence
   per process does.  The exit's writes (in_cs, turn, flag) need none: TSO keeps them
   in order.  Safe under SC and TSO, with the paper's 2 fences.  See dekker.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int flag0;
int flag1;
int turn;
int in_cs;

void *p0(void *arg)
{
	while (1) {
		while (1) {
			flag0 = 1;                      /* A */
			atomic_thread_fence(memory_order_seq_cst);
			while (flag1 == 1 && turn == 0) /* L: the turn is mine */
				;
			if (flag1 == 0)
				break;
			flag0 = 0;                      /* not my turn: back off */
			while (turn == 1)               /* B */
				;
		}
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		turn = 1;
		flag0 = 0;
	}
	return 0;
}

void *p1(void *arg)
{
	while (1) {
		while (1) {
			flag1 = 1;                      /* A */
			atomic_thread_fence(memory_order_seq_cst);
			while (flag0 == 1 && turn == 1) /* L: the turn is mine */
				;
			if (flag0 == 0)
				break;
			flag1 = 0;                      /* not my turn: back off */
			while (turn == 0)               /* B */
				;
		}
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		turn = 0;
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
