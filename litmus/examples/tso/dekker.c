/* herdsman: expect sc=safe tso=unsafe
   herdsman: paper-fences 2
   Dekker's mutual exclusion for two processes, the first correct solution (T. J.
   Dekker, as published by E. W. Dijkstra, "Cooperating sequential processes", EWD 123,
   1965), in the shape of EWD 123: a process raises its flag (A); while the other's flag
   is up it keeps looking if the turn is its own (L), and otherwise lowers its flag,
   waits for the turn (B) and starts again at A.  It leaves by giving the turn away and
   lowering its flag.  Each process loops forever.  Correct under SC; under TSO a
   raised flag may still sit in the store buffer when the process reads the other's
   flag, both read it down and both enter (the store-buffering shape), which the in_cs
   check catches.  See dekker_fenced.c. */
#include <assert.h>
#include <pthread.h>

int flag0;
int flag1;
int turn;
int in_cs;

void *p0(void *arg)
{
	while (1) {
		while (1) {
			flag0 = 1;                      /* A */
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
