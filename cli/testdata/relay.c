/*
 * The smallest stdio relay in C, for the gateway benchmark
 * (bench_gateway_test.go): it runs argv[1..] as a child and copies stdin
 * to the child's stdin and the child's stdout to stdout, one thread and
 * one blocking read(2) each way. What it adds to a direct call is what one
 * more process in between costs on this machine, at best.
 */
#include <pthread.h>
#include <unistd.h>

static int to_child[2], from_child[2];

static void copy(int from, int to) {
	char buf[65536];
	ssize_t n;
	while ((n = read(from, buf, sizeof buf)) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(to, buf + off, n - off);
			if (w <= 0)
				return;
			off += w;
		}
	}
}

static void *upstream(void *arg) {
	(void)arg;
	copy(0, to_child[1]);
	close(to_child[1]);
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 2 || pipe(to_child) || pipe(from_child))
		return 2;
	if (fork() == 0) {
		dup2(to_child[0], 0);
		dup2(from_child[1], 1);
		close(to_child[0]); close(to_child[1]);
		close(from_child[0]); close(from_child[1]);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	close(to_child[0]);
	close(from_child[1]);
	pthread_t t;
	pthread_create(&t, 0, upstream, 0);
	copy(from_child[0], 1);
	return 0;
}
