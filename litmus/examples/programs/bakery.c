/* herdsman: expect sc=safe tso=unsafe pso=unsafe
   herdsman: reference-slow
   Lamport's bakery algorithm for N threads (L. Lamport, "A new solution of Dijkstra's
   concurrent programming problem", CACM 17(8), 1974), without fences; N is 2 unless
   given (-D N=3).  A thread takes a ticket one above every ticket it sees (choosing[me]
   is up meanwhile), then waits for each other thread to finish choosing and for every
   smaller ticket (ties broken by thread number).  Correct under SC; under TSO a thread's
   ticket and choosing flag may still be in its store buffer while the other thread reads
   them as 0, so both enter the critical section.  See bakery_fenced.c. */
#include <assert.h>
#include <pthread.h>

#ifndef N
#define N 2
#endif

int choosing[N];
int number[N];
int in_cs;
pthread_t tid[N];

void *thread(void *arg)
{
	int me = (int)(long)arg;
	int max = 0;
	int mine, nj;

	choosing[me] = 1;
	for (int j = 0; j < N; j++) {
		if (j != me) {
			nj = number[j];
			if (nj > max)
				max = nj;
		}
	}
	mine = max + 1;
	number[me] = mine;
	choosing[me] = 0;
	for (int j = 0; j < N; j++) {
		if (j != me) {
			while (choosing[j] != 0)
				;
			do {
				nj = number[j];
			} while (nj != 0 && (nj < mine || (nj == mine && j < me)));
		}
	}
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	number[me] = 0;
	return 0;
}

int main(void)
{
	for (int i = 0; i < N; i++)
		pthread_create(&tid[i], 0, thread, (void *)(long)i);
	for (int i = 0; i < N; i++)
		pthread_join(tid[i], 0);
	return 0;
}
