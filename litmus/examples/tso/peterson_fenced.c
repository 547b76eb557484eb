/* herdsman: expect sc=safe tso=safe
   herdsman: paper-fences 2
   Peterson's algorithm of peterson.c (Fig. 1 of Narayan, Sharma and Arun-Kumar) with
   one fence in each process, after its writes of flag and turn and before it reads the
   other's flag and the turn: both writes are in memory before either read, so a
   process can neither read the other's raised flag as down nor have its turn write
   land after the other's.  A fence right after the flag write instead (the placement
   the paper's introduction mentions) is not enough: the turn write can still reach
   memory after the other process's, handing the turn back while both are inside.
   Safe under SC and TSO, with the paper's 2 fences.  See peterson.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int flag1;
int flag2;
int t;
int in_cs;

void *p1(void *arg)
{
	while (1) {
		flag1 = 1;
		t = 2;
		atomic_thread_fence(memory_order_seq_cst);
		while (flag2 == 1 && t == 2)
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
		t = 1;
		atomic_thread_fence(memory_order_seq_cst);
		while (flag1 == 1 && t == 1)
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
	pthread_t a, b;

	pthread_create(&a, 0, p1, 0);
	pthread_create(&b, 0, p2, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	return 0;
}
