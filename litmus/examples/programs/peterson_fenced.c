/* herdsman: expect sc=safe tso=safe pso=safe
   Peterson's mutual exclusion for two threads (G. L. Peterson, "Myths about the mutual
   exclusion problem", IPL 12(3), 1981) with the fences that make it correct on weaker
   machines.  The fence after "turn = other" keeps the writes of flag and turn ahead of
   the reads of the wait loop (TSO only needs this one).  Under PSO writes to different
   variables may also pass each other: the fence after "flag[me] = 1" keeps it ahead of
   the write of turn (else the other thread may see the turn given to it while this flag
   still reads 0), and the fence before "flag[me] = 0" keeps the critical section's
   writes ahead of the release.  Safe under SC, TSO and PSO.  See peterson.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int flag[2];
int turn;
int in_cs;

void *thread(void *arg)
{
	int me = (int)(long)arg;
	int other = 1 - me;

	flag[me] = 1;
	atomic_thread_fence(memory_order_seq_cst);      /* PSO: flag before turn */
	turn = other;
	atomic_thread_fence(memory_order_seq_cst);      /* TSO: writes before the reads */
	while (flag[other] == 1 && turn == other)
		;
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	atomic_thread_fence(memory_order_seq_cst);      /* PSO: in_cs before the release */
	flag[me] = 0;
	return 0;
}

int main(void)
{
	pthread_t t0, t1;

	pthread_create(&t0, 0, thread, (void *)0);
	pthread_create(&t1, 0, thread, (void *)1);
	pthread_join(t0, 0);
	pthread_join(t1, 0);
	return 0;
}
