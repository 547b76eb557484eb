/* herdsman: expect sc=safe tso=safe pso=unsafe
   A sequence lock (seqlock) with one writer and one reader, without fences: the Linux
   kernel's reader-writer scheme (2.6, 2003), as described by H.-J. Boehm, "Can seqlocks
   get along with programming language memory models?", MSPC 2012.  The writer makes the
   sequence number odd, writes the two data words, and makes it even again; the reader
   waits for an even number, reads the data, reads the number again and, when it did not
   change, must have read a consistent pair.  TSO keeps the writer's writes in order and
   the reader's reads in order: safe under SC and TSO.  Under PSO the data writes may
   become visible before seq = 1, and the reader sees seq 0 before and after a torn pair.
   See seqlock_fenced.c. */
#include <assert.h>
#include <pthread.h>

int seq;
int data1, data2;

void *writer(void *arg)
{
	seq = 1;
	data1 = 1;
	data2 = 1;
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
