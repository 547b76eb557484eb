/* herdsman: expect sc=safe tso=safe
   herdsman: paper-fences 2
   Dijkstra's algorithm of dijkstra.c with one fence in each process, after setting its
   passed mark and before reading the other's: the second stage's store-load pair.
   The first stage (want, k) needs no fence under TSO: a process that takes k through
   a write still in its buffer is stopped by the second stage.  Safe under SC and TSO,
   with the paper's 2 fences.  See dijkstra.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int want0;
int want1;
int passed0;
int passed1;
int k;
int in_cs;

void *p0(void *arg)
{
	while (1) {
		want0 = 1;
		while (1) {
			if (k != 0) {           /* k names the other */
				passed0 = 0;
				if (want1 == 0)
					k = 0;
				else                    /* nothing changes until k or want1 does */
					while (k != 0 && want1 == 1)
						;
			} else {
				passed0 = 1;
				atomic_thread_fence(memory_order_seq_cst);
				if (passed1 == 0)
					break;
			}
		}
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		passed0 = 0;
		want0 = 0;
	}
	return 0;
}

void *p1(void *arg)
{
	while (1) {
		want1 = 1;
		while (1) {
			if (k != 1) {           /* k names the other */
				passed1 = 0;
				if (want0 == 0)
					k = 1;
				else                    /* nothing changes until k or want0 does */
					while (k != 1 && want0 == 1)
						;
			} else {
				passed1 = 1;
				atomic_thread_fence(memory_order_seq_cst);
				if (passed0 == 0)
					break;
			}
		}
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		passed1 = 0;
		want1 = 0;
	}
	return 0;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, 0, p0, 0);
	pthread_create(&b, 0, p1, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	return 0;
}
