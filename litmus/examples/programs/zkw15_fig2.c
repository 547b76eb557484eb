/* herdsman: expect sc=safe tso=safe pso=unsafe power=unsafe
   Figure 2 of S. Zhang, M. Kusano, C. Wang, "Dynamic partial order reduction for
   relaxed memory models", PLDI 2015: "a PSO example".  The first thread writes x and then
   the flag y; the second reads the flag and, when it is set, expects x to be set too (the
   message-passing shape).  SC and TSO keep the two writes in order, so the error is
   unreachable; PSO has one store buffer per variable and may make y=1 visible before x=1
   (so may POWER).  The figure's "if (x == 0) ERROR" is the assertion. */
#include <assert.h>
#include <pthread.h>

int x = 0, y = 0;

void *thread1(void *arg)
{
	x = 1;                /* W(x) a1 */
	y = 1;                /* W(y) a2 */
	return 0;
}

void *thread2(void *arg)
{
	if (y == 1) {         /* R(y) b1 */
		assert(x != 0); /* R(x) b2: "if (x == 0) ERROR" */
	}
	return 0;
}

int main(void)
{
	pthread_t t1, t2;

	pthread_create(&t1, 0, thread1, 0);
	pthread_create(&t2, 0, thread2, 0);
	pthread_join(t1, 0);
	pthread_join(t2, 0);
	return 0;
}
