/* herdsman: expect sc=safe tso=safe pso=safe
   herdsman: reference-slow
   Lamport's bakery algorithm for N threads (L. Lamport, "A new solution of Dijkstra's
   concurrent programming problem", CACM 17(8), 1974) with fences; N is 2 unless given
   (-D N=3).  For TSO, a fence after raising choosing[me] keeps it
   ahead of the reads of the other tickets, and one after writing the ticket keeps it
   ahead of the waiting reads (a lowered choosing[me] still in the buffer only makes the
   others wait longer).  For PSO the second fence also keeps the ticket ahead of the
   lowering of choosing[me], and a third keeps the critical section's writes ahead of the
   ticket's release.  Safe under SC, TSO and PSO.  See bakery.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 2
#endif

int choosing[N];
int number[N];
int in_cs;
pthread_t tid[N];

void *thread(void *arg)
{
	int me = (int)(long)arg;
	int max = 0;
	int mine, nj;

	choosing[me] = 1;
	atomic_thread_fence(memory_order_seq_cst);      /* TSO: choosing before the reads */
	for (int j = 0; j < N; j++) {
		if (j != me) {
			nj = number[j];
			if (nj > max)
				max = nj;
		}
	}
	mine = max + 1;
	number[me] = mine;
	atomic_thread_fence(memory_order_seq_cst);      /* the ticket before choosing, reads */
	choosing[me] = 0;
	for (int j = 0; j < N; j++) {
		if (j != me) {
			while (choosing[j] != 0)
				;
			do {
				nj = number[j];
			} while (nj != 0 && (nj < mine || (nj == mine && j < me)));
		}
	}
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	atomic_thread_fence(memory_order_seq_cst);      /* PSO: in_cs before the release */
	number[me] = 0;
	return 0;
}

int main(void)
{
	for (int i = 0; i < N; i++)
		pthread_create(&tid[i], 0, thread, (void *)(long)i);
	for (int i = 0; i < N; i++)
		pthread_join(tid[i], 0);
	return 0;
}
