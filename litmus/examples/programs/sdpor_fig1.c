/* herdsman: expect sc=safe tso=safe pso=safe
   herdsman: unroll 2
   Figure 1 of Y. Yang, X. Chen, G. Gopalakrishnan, R. M. Kirby, "Efficient stateful
   dynamic partial order reduction", SPIN 2008: two threads, each in a loop of ceil(N/5)
   iterations, add to (thread 1) or subtract from (thread 2) a shared d inside an atomic
   block and assert d % 5 != 4.  Both step their loop variable by 5 (thread 2's step is
   lost in our copy of the figure; 5 is the symmetric reading), so d stays a multiple of 5
   and the assertion holds under every model; the program is the paper's example of many
   interleavings reaching the same states.  The atomic blocks are a mutex here.  With
   -D N=M give --unroll ceil(M/5) or more; the paper's N = 64 (13 blocks a thread) means
   C(26,13), about ten million, orders of the blocks: too many for a stateless checker,
   which is the paper's point. */
#include <assert.h>
#include <pthread.h>

#ifndef N
#define N 2
#endif

int d = 0;
pthread_mutex_t m;

void *thread1(void *arg)
{
	int i = 0;

	while (i < N) {
		pthread_mutex_lock(&m);         /* L1: atomic { */
		d = d + i;
		assert(d % 5 != 4);
		pthread_mutex_unlock(&m);       /* } */
		i = i + 5;                      /* L2 */
	}
	return 0;
}

void *thread2(void *arg)
{
	int j = 0;

	while (j < N) {
		pthread_mutex_lock(&m);         /* M1: atomic { */
		d = d - j;
		assert(d % 5 != 4);
		pthread_mutex_unlock(&m);       /* } */
		j = j + 5;                      /* M4 */
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
