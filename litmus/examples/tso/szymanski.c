/* herdsman: expect sc=safe tso=unsafe
   herdsman: paper-fences 4
   Szymanski's mutual exclusion for two processes (B. K. Szymanski, "A simple solution
   to Lamport's concurrent programming problem with linear wait", ICS 1988), each
   looping forever.  A process's flag says where it is: 1 wants in (outside the waiting
   room), 3 stands in the doorway, 2 waits in the room for the door to close, 4 has
   closed the door, 0 is out.  A process raises its flag to 1 and waits for the door
   to be open (the other's flag below 3); it steps into the doorway (3) and, if the
   other also wants in (1), waits in the room (2) until the other closes the door (4);
   it closes the door (4); p1 waits until p0, the lower number, is out of the room and
   the doorway (flag below 2); after the critical section p0 waits until p1 is neither
   waiting (2) nor in the doorway (3), and each leaves with flag 0.  Correct under SC.
   Under TSO a process's flag writes may still sit in its store buffer while it reads
   the other's flag: each can see the other at an earlier stage (or out) than it
   is, both pass the waits meant to hold one of them back and both enter, which the
   in_cs check catches.  See szymanski_fenced.c. */
#include <assert.h>
#include <pthread.h>

int flag0;
int flag1;
int in_cs;

void *p0(void *arg)
{
	int f;

	while (1) {
		flag0 = 1;                      /* want in */
		while (flag1 >= 3)              /* wait for the door to open */
			;
		flag0 = 3;                      /* in the doorway */
		if (flag1 == 1) {               /* the other wants in: wait in the room */
			flag0 = 2;
			while (flag1 != 4)
				;
		}
		flag0 = 4;                      /* close the door */
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		do {                            /* wait for the other to leave room and doorway */
			f = flag1;
		} while (f == 2 || f == 3);
		flag0 = 0;
	}
	return 0;
}

void *p1(void *arg)
{
	while (1) {
		flag1 = 1;                      /* want in */
		while (flag0 >= 3)              /* wait for the door to open */
			;
		flag1 = 3;                      /* in the doorway */
		if (flag0 == 1) {               /* the other wants in: wait in the room */
			flag1 = 2;
			while (flag0 != 4)
				;
		}
		flag1 = 4;                      /* close the door */
		while (flag0 >= 2)              /* the lower number goes first */
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag1 = 0;
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
