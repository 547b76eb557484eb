/* herdsman: expect sc=safe tso=safe
   herdsman: paper-fences 2
   The readers-writer lock of rwlock.c (two readers, one writer) with one fence in each
   reader, between its announcement (reading = 1) and its look at the writers' lock: a
   reader reads the lock free only with its announcement in memory, where the writer,
   whose atomic exchange is already a full barrier, will see it.  Safe under SC and
   TSO, with the paper's 2 fences.  See rwlock.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int wlock;       /* the writers' lock */
int reading1;           /* reader 1's slot */
int reading2;           /* reader 2's slot */
int data;               /* 1 while an update is in progress */

void *reader1(void *arg)
{
	while (1) {
		while (1) {
			reading1 = 1;           /* announce */
			atomic_thread_fence(memory_order_seq_cst);
			if (atomic_load_explicit(&wlock, memory_order_relaxed) == 0)
				break;
			reading1 = 0;           /* a writer: withdraw, wait, retry */
			while (atomic_load_explicit(&wlock, memory_order_relaxed) != 0)
				;
		}
		/* read section */
		assert(data == 0);
		reading1 = 0;
	}
	return 0;
}

void *reader2(void *arg)
{
	while (1) {
		while (1) {
			reading2 = 1;           /* announce */
			atomic_thread_fence(memory_order_seq_cst);
			if (atomic_load_explicit(&wlock, memory_order_relaxed) == 0)
				break;
			reading2 = 0;           /* a writer: withdraw, wait, retry */
			while (atomic_load_explicit(&wlock, memory_order_relaxed) != 0)
				;
		}
		/* read section */
		assert(data == 0);
		reading2 = 0;
	}
	return 0;
}

void *writer(void *arg)
{
	while (1) {
		while (atomic_exchange_explicit(&wlock, 1, memory_order_relaxed) != 0)
			;
		while (reading1 == 1 || reading2 == 1)  /* wait for the readers to leave */
			;
		/* write section */
		data = 1;
		data = 0;
		atomic_store_explicit(&wlock, 0, memory_order_relaxed);
	}
	return 0;
}

int main(void)
{
	pthread_t r1, r2, w;

	pthread_create(&r1, 0, reader1, 0);
	pthread_create(&r2, 0, reader2, 0);
	pthread_create(&w, 0, writer, 0);
	pthread_join(r1, 0);
	pthread_join(r2, 0);
	pthread_join(w, 0);
	return 0;
}
