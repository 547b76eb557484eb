/* herdsman: expect sc=safe tso=unsafe
   herdsman: paper-fences 3
   Simple Dekker for three processes, each looping forever: the flag protocol of
   Dekker's algorithm (T. J. Dekker, in E. W. Dijkstra, "Cooperating sequential
   processes", EWD 123, 1965) without its turn.  A process raises its flag, waits until
   every other flag is down and enters the critical section; it leaves by lowering its
   flag.  (Without the turn two processes that raise their flags together wait for each
   other forever: a deadlock, not a safety violation.)  Correct under SC: of two
   processes in the critical section, the one that raised its flag last would have
   read the other's up.  Under TSO a raised flag may still sit in the store buffer
   when the process reads the others' flags (the store-buffering shape): two processes
   read each other's flags down and both enter, which the in_cs check catches.  See
   simple_dekker_fenced.c. */
#include <assert.h>
#include <pthread.h>

int flag0;
int flag1;
int flag2;
int in_cs;

void *p0(void *arg)
{
	while (1) {
		flag0 = 1;
		while (flag1 == 1 || flag2 == 1)
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag0 = 0;
	}
	return 0;
}

void *p1(void *arg)
{
	while (1) {
		flag1 = 1;
		while (flag0 == 1 || flag2 == 1)
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag1 = 0;
	}
	return 0;
}

void *p2(void *arg)
{
	while (1) {
		flag2 = 1;
		while (flag0 == 1 || flag1 == 1)
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag2 = 0;
	}
	return 0;
}

int main(void)
{
	pthread_t a, b, c;

	pthread_create(&a, 0, p0, 0);
	pthread_create(&b, 0, p1, 0);
	pthread_create(&c, 0, p2, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	pthread_join(c, 0);
	return 0;
}
