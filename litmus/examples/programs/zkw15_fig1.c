/* herdsman: expect sc=safe tso=unsafe pso=unsafe power=unsafe
   Figure 1 of S. Zhang, M. Kusano, C. Wang, "Dynamic partial order reduction for
   relaxed memory models", PLDI 2015: "a TSO example".  Each thread writes one variable
   and then reads the other (the store-buffering shape).  Under SC one of the writes comes
   first, so the two reads cannot both return 0; under TSO (and PSO, POWER) each write may
   wait in its thread's store buffer past the thread's read, and a=0, b=0 is printed.  The
   figure prints a and b; here they are globals that main checks after joining. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

int x = 0, y = 0;
int a, b;

void *thread1(void *arg)
{
	x = 1;                /* W(x) a1 */
	a = y;                /* R(y) a2 */
	printf("a=%d\n", a);
	return 0;
}

void *thread2(void *arg)
{
	y = 1;                /* W(y) b1 */
	b = x;                /* R(x) b2 */
	printf("b=%d\n", b);
	return 0;
}

int main(void)
{
	pthread_t t1, t2;

	pthread_create(&t1, 0, thread1, 0);
	pthread_create(&t2, 0, thread2, 0);
	pthread_join(t1, 0);
	pthread_join(t2, 0);
	assert(!(a == 0 && b == 0));
	return 0;
}
