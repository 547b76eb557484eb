/* herdsman: expect sc=safe tso=unsafe
   herdsman: paper-fences 2
   Dijkstra's mutual exclusion for two processes (E. W. Dijkstra, "Solution of a problem
   in concurrent programming control", CACM 8(9), 1965), each looping forever.  A
   process announces that it wants in; then, in a loop, if the variable k does not name
   it, it withdraws its "passed" mark and, when the process k names does not want in,
   takes k for itself; once k names it, it sets its "passed" mark and enters if the
   other's is down, else it starts the loop again.  It leaves by lowering its marks.
   (While k names the other and the other wants in, a process here waits for one of
   the two to change instead of re-running the loop, whose further rounds would only
   write passed = 0 again: fewer states, and a process stuck there is blocked.)
   Correct under SC: both processes may find k naming them, one reading k before the
   other takes it over, and the second stage sorts that out.  Under TSO each one's
   passed = 1 may still sit in its store buffer when it reads the other's mark (the
   store-buffering shape): both read it down and both enter, which the in_cs check
   catches.  See dijkstra_fenced.c. */
#include <assert.h>
#include <pthread.h>

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
