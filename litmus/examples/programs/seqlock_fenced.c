/* herdsman: expect sc=safe tso=safe pso=safe
   A sequence lock (seqlock) with one writer and one reader (the Linux kernel's scheme,
   2.6, 2003, as described by H.-J. Boehm, "Can seqlocks get along with programming
   language memory models?", MSPC 2012) with the writer's store-store fences: release
   fences (a store barrier on PSO, nothing on TSO) keep seq = 1 ahead of the data writes
   and the data writes ahead of seq = 2, which is what PSO needs (TSO already keeps writes
   in order, and the reader's reads stay in order under both).  Safe under SC, TSO and
   PSO.  See seqlock.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int seq;
int data1, data2;

void *writer(void *arg)
{
	seq = 1;
	atomic_thread_fence(memory_order_release);
	data1 = 1;
	data2 = 1;
	atomic_thread_fence(memory_order_release);
	seq = 2;
	return 0;
}

void *reader(void *arg)
{
	int s0, s1, d1, d2;

	do {
		s0 = seq;
	} while (s0 % 2 != 0);          /* wait for no write in progress */
	d1 = data1;
	d2 = data2;
	s1 = seq;
	if (s0 == s1)                   /* else the reader would retry */
		assert(d1 == d2);
	return 0;
}

int main(void)
{
	pthread_t t0, t1;

	pthread_create(&t0, 0, writer, 0);
	pthread_create(&t1, 0, reader, 0);
	pthread_join(t0, 0);
	pthread_join(t1, 0);
	return 0;
}
