/* herdsman: expect sc=safe tso=safe pso=safe
   The alternating-bit protocol (K. A. Bartlett, R. A. Scantlebury, P. T. Wilkinson, "A
   note on reliable full-duplex transmission over half-duplex links", CACM 12(5), 1969)
   between a sender and a receiver thread over shared memory, as in abp.c, with a release
   fence (a store barrier on PSO, nothing on TSO) between the sender's message and its
   bit, which is what PSO needs.  Safe under SC, TSO and PSO.  See abp.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef M
#define M 2
#endif

int msg;
int bit;
int ack;

void *sender(void *arg)
{
	int b = 0;

	for (int i = 0; i < M; i++) {
		msg = i + 1;
		b = 1 - b;
		atomic_thread_fence(memory_order_release);
		bit = b;
		while (ack != b)        /* wait for the acknowledgement */
			;
	}
	return 0;
}

void *receiver(void *arg)
{
	int b = 0;

	for (int i = 0; i < M; i++) {
		while (bit == b)        /* wait for a new message */
			;
		b = 1 - b;
		assert(msg == i + 1);
		ack = b;
	}
	return 0;
}

int main(void)
{
	pthread_t t0, t1;

	pthread_create(&t0, 0, sender, 0);
	pthread_create(&t1, 0, receiver, 0);
	pthread_join(t0, 0);
	pthread_join(t1, 0);
	return 0;
}
