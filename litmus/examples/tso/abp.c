/* herdsman: expect sc=safe tso=safe
   herdsman: paper-fences 0
   The alternating-bit protocol (K. A. Bartlett, R. A. Scantlebury, P. T. Wilkinson, "A
   note on reliable full-duplex transmission over half-duplex links", CACM 12(5), 1969)
   between a sender and a receiver process over shared memory, both looping forever.
   The channel is a data word and a sequence bit, the acknowledgement a second bit.
   The sender writes the next datum, flips its sequence bit and publishes it, then waits
   until the acknowledgement carries that bit; the receiver waits for the sequence bit
   to differ from the last one it took, reads the datum, checks it is the one expected
   and acknowledges the bit.  (Shared memory loses nothing, so there are no
   retransmissions.)  Finite data: the data are 1, 2, 0, 1, 2, ... (counted modulo 3),
   so a stale datum is never the expected one; the bits are bits.  TSO keeps the
   sender's datum ahead of its bit and the receiver's reads in order, so the protocol
   is safe under TSO without fences, as under SC (it would fail under PSO, where the bit
   may overtake the datum). */
#include <assert.h>
#include <pthread.h>

int data;
int seq;
int ack;

void *sender(void *arg)
{
	int bit = 0;
	int next = 0;

	while (1) {
		next = (next + 1) % 3;
		data = next;
		bit = 1 - bit;
		seq = bit;
		while (ack != bit)              /* wait for the acknowledgement */
			;
	}
	return 0;
}

void *receiver(void *arg)
{
	int bit = 0;
	int expected = 0;

	while (1) {
		while (seq == bit)              /* wait for a new datum */
			;
		bit = 1 - bit;
		expected = (expected + 1) % 3;
		assert(data == expected);
		ack = bit;
	}
	return 0;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, 0, sender, 0);
	pthread_create(&b, 0, receiver, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	return 0;
}
