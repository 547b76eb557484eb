/* herdsman: expect sc=safe tso=safe pso=safe
   Two threads each push a node they allocate with malloc onto a Treiber stack (a
   compare-and-swap on the head pointer); main then walks the linked list through the
   nodes' next pointers and checks that it holds both values.  Pointers to heap cells
   flow through memory: the head, the next fields.  GenMC counts 2 executions under SC
   (one per order of the two pushes; a failed CAS that retries is no new execution). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct node {
	int val;
	struct node *next;
};

_Atomic(struct node *) head;

void *push(void *arg)
{
	struct node *n = malloc(sizeof(struct node));
	n->val = (int) (long) arg;
	struct node *h = atomic_load(&head);
	do
		n->next = h;
	while (!atomic_compare_exchange_strong(&head, &h, n));
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, push, (void *) 1);
	pthread_create(&b, NULL, push, (void *) 2);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	int sum = 0, count = 0;
	for (struct node *p = atomic_load(&head); p != NULL; p = p->next) {
		sum += p->val;
		count++;
	}
	assert(count == 2 && sum == 3);
	return 0;
}
