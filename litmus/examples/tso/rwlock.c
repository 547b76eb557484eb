/* herdsman: expect sc=safe tso=unsafe
   herdsman: paper-fences 2
   A readers-writer lock with two readers and one writer, each looping forever, in the
   manner of the "big reader" locks (each reader has its own slot, so readers never
   write a shared word; the writer takes the writers' lock, then waits for every slot
   to empty; cf. the brlocks of Linux 2.4 and the reader-indicator locks of Courtois,
   Heymans and Parnas, "Concurrent control with readers and writers", CACM 14(10),
   1971).  A reader announces itself in its slot (reading = 1), then looks at the
   writers' lock: free, it reads; taken, it withdraws (reading = 0), waits for the lock
   to be free and tries again; it leaves by emptying its slot.  The writer takes the
   writers' lock with an atomic exchange (one writer here, so the lock is always free,
   but a lock word for writers is taken by an atomic instruction, which x86 orders with
   everything), waits until both slots are empty, updates the data and releases the
   lock with a plain store.  The data word is 0 when consistent and 1 while the writer
   is in the middle of an update (data = 1; data = 0;): a reader checks it reads
   consistent data.  Correct under SC.  Under TSO a reader's announcement may still sit
   in its store buffer when it reads the lock free, while the writer, having taken the
   lock, reads the slot empty and updates the data under the reader (the store-buffering
   shape), which the reader's check catches.  The fenced version needs one fence per
   reader, between its announcement and its look at the lock; the writer's exchange is
   already a full barrier.  See rwlock_fenced.c. */
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
