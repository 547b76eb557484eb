/* herdsman: expect sc=safe tso=unsafe pso=unsafe power=unsafe
   Peterson's mutual exclusion for two threads (G. L. Peterson, "Myths about the mutual
   exclusion problem", IPL 12(3), 1981), without fences.  A thread raises its flag, gives
   the turn away, and waits while the other's flag is up and the turn is the other's.  It
   is correct under SC; under TSO each thread's writes of flag and turn may still sit in
   its store buffer when it reads the other's flag, both read 0 and both enter the
   critical section (the store-buffering shape), which the in_cs check catches.  See
   peterson_fenced.c. */
#include <assert.h>
#include <pthread.h>

int flag[2];
int turn;
int in_cs;

void *thread(void *arg)
{
	int me = (int)(long)arg;
	int other = 1 - me;

	flag[me] = 1;
	turn = other;
	while (flag[other] == 1 && turn == other)
		;
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
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
