/* herdsman: expect sc=safe tso=safe pso=unsafe
   The alternating-bit protocol (K. A. Bartlett, R. A. Scantlebury, P. T. Wilkinson, "A
   note on reliable full-duplex transmission over half-duplex links", CACM 12(5), 1969)
   between a sender and a receiver thread over shared memory, without fences: the channel
   is a message word and a bit, the acknowledgement is a second bit.  For each of M
   messages (2 unless given) the sender writes the message, flips its bit and publishes
   it, then waits for the acknowledgement of that bit; the receiver waits for the bit to
   change, reads the message, checks it is the expected one and acknowledges.  (Shared
   memory loses nothing, so there are no retransmissions.)  TSO keeps the sender's
   message ahead of its bit: safe under SC and TSO; under PSO the bit may become visible
   first and the receiver reads the previous message.  See abp_fenced.c. */
#include <assert.h>
#include <pthread.h>

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
