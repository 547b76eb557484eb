/* herdsman: expect sc=safe tso=unsafe pso=unsafe
   herdsman: reference-slow
   Szymanski's mutual exclusion for two threads (B. K. Szymanski, "A simple solution to
   Lamport's concurrent programming problem with linear wait", ICS 1988), without
   fences.  Each thread's flag goes 1 (wants in), 3 (in the doorway), 2 (waiting for the
   door to close), 4 (door closed), 0 (out); the lower-numbered thread enters first and
   the exit waits for the others to leave the doorway.  Correct under SC; under TSO a
   thread's flag writes may stay in its store buffer while it reads the other's flag,
   both read 0 throughout and both enter.  See szymanski_fenced.c. */
#include <assert.h>
#include <pthread.h>

int flag[2];
int in_cs;

void *thread(void *arg)
{
	int me = (int)(long)arg;
	int other = 1 - me;

	flag[me] = 1;                   /* stand outside the waiting room */
	while (flag[other] >= 3)        /* wait for the door to open */
		;
	flag[me] = 3;                   /* stand in the doorway */
	if (flag[other] == 1) {         /* another thread wants in: wait for it */
		flag[me] = 2;
		while (flag[other] != 4)
			;
	}
	flag[me] = 4;                   /* close the door */
	if (other < me) {               /* lower numbers go first */
		while (flag[other] >= 2)
			;
	}
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	if (other > me) {               /* let the waiting room see the door closed */
		while (flag[other] == 2 || flag[other] == 3)
			;
	}
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
