/* herdsman: expect sc=safe tso=unsafe
   herdsman: paper-fences 2
   Peterson's mutual exclusion for two processes (G. L. Peterson, "Myths about the
   mutual exclusion problem", IPL 12(3), 1981), as in Fig. 1 of Narayan, Sharma and
   Arun-Kumar: each process loops forever, raising its flag, giving the turn away and
   waiting while the other's flag is up and the turn is the other's.  Correct under SC.
   Under TSO the writes of flag and turn may still sit in the store buffer when the
   process reads the other's flag and the turn, so both can enter: either both read
   the other's flag down (flag and turn both buffered: buffers of 2), or, already with
   one-place buffers, a process's turn write is delayed past its read of the other's
   flag (which it reads down, and enters) and lands in memory after the other's turn
   write, giving the other the turn although it is inside itself.  The in_cs check
   catches both.  See peterson_fenced.c. */
#include <assert.h>
#include <pthread.h>

int flag1;
int flag2;
int t;
int in_cs;

void *p1(void *arg)
{
	while (1) {
		flag1 = 1;
		t = 2;
		while (flag2 == 1 && t == 2)
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag1 = 0;
	}
	return 0;
}

void *p2(void *arg)
{
	while (1) {
		flag2 = 1;
		t = 1;
		while (flag1 == 1 && t == 1)
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag2 = 0;
	}
	return 0;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, 0, p1, 0);
	pthread_create(&b, 0, p2, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	return 0;
}
