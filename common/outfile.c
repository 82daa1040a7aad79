#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Temporary files still open, removed by an exit handler so that die()
 * anywhere in a program leaves nothing under a half-written name, and by
 * a handler of the signals that end a program (an interrupt, a kill, a
 * closed terminal or pipe), which then dies of the same signal so that
 * the caller sees it (a shell's status 128 + N).  The handler reads the
 * table only and calls only async-signal-safe functions; a slot is
 * filled with a complete name.
 *
 * Outputs are opened by the main thread, which blocks the signals from
 * creating a temporary file to entering it in the table.  A signal for
 * the process may still go to another thread (OpenMP's workers do not
 * block it): the handler there passes it on to the main thread, which
 * takes it once the name is in the table. */
#define MAX_PENDING 16
static char *volatile pending[MAX_PENDING];
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
static pthread_t main_thread;

static void remove_pending(void)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i]) {
			unlink(pending[i]);
			pending[i] = NULL;
		}
}

static void on_fatal_signal(int sig)
{
	if (!pthread_equal(pthread_self(), main_thread)) {
		pthread_kill(main_thread, sig);
		return;
	}
	remove_pending();   /* unlink and stores: safe in a handler */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void fatal_signal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t k = 0; k < sizeof fatal_signals / sizeof *fatal_signals;
	     k++)
		sigaddset(set, fatal_signals[k]);
}

/* Catches the fatal signals, except one the program was started with
 * ignored (nohup, a shell's background job): it stays ignored. */
static void catch_fatal_signals(void)
{
	main_thread = pthread_self();
	for (size_t k = 0; k < sizeof fatal_signals / sizeof *fatal_signals;
	     k++) {
		struct sigaction old, sa = {.sa_handler = on_fatal_signal};
		sigemptyset(&sa.sa_mask);
		if (sigaction(fatal_signals[k], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(fatal_signals[k], &sa, NULL);
	}
}

/* The exit handler and the signal handlers, installed once, before the
 * first temporary file exists: until then a fatal signal that reaches a
 * thread which does not block it (an OpenMP worker, while the main
 * thread has them blocked) would end the program by its default action
 * with the file already on disk. */
static void register_cleanup(void)
{
	static int registered;
	if (!registered) {
		atexit(remove_pending);
		catch_fatal_signals();
		registered = 1;
	}
}

static void track(char *tmp, int on)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (on ? pending[i] == NULL : pending[i] == tmp) {
			pending[i] = on ? tmp : NULL;
			return;
		}
}

static int open_in_place(struct outfile *o, const char *path, int binary,
			 struct error *e)
{
	o->f = fopen(path, "wb");
	if (!o->f)
		return error_set(e, "cannot open %s: %s", path, strerror(errno));
	if (binary && is_terminal(o->f)) {
		fclose(o->f);
		o->f = NULL;
		return error_set(e, "refusing to write binary data to a "
				 "terminal (%s)", path);
	}
	widen_pipe(fileno(o->f));
	return 0;
}

int outfile_open(struct outfile *o, const char *path, int binary,
		 struct error *e)
{
	memset(o, 0, sizeof *o);
	o->path = path;
	if (strcmp(path, "-") == 0) {
		if (binary && is_terminal(stdout))
			return error_set(e, "refusing to write binary data to a "
					 "terminal (redirect stdout or use --output)");
		o->f = stdout;
		widen_pipe(fileno(stdout));
		return 0;
	}
	/* A device or a FIFO (/dev/null, a named pipe) is written in place:
	 * a temporary file renamed over it would replace the device. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return open_in_place(o, path, binary, e);
	size_t n = strlen(path) + 16;
	o->tmp = xmalloc(n);
	snprintf(o->tmp, n, "%s.tmpXXXXXX", path);
	register_cleanup();
	/* the fatal signals wait until the name is in the table */
	sigset_t fatal, old;
	fatal_signal_set(&fatal);
	pthread_sigmask(SIG_BLOCK, &fatal, &old);
	int fd = mkstemp(o->tmp);
	if (fd >= 0)
		track(o->tmp, 1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		int err = errno;
		free(o->tmp);
		o->tmp = NULL;
		return error_set(e, "cannot create %s: %s", path, strerror(err));
	}
	/* mkstemp makes the file 0600; give it the usual umask'd 0666 mode. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		int err = errno;
		close(fd);
		unlink(o->tmp);
		track(o->tmp, 0);
		free(o->tmp);
		o->tmp = NULL;
		return error_set(e, "cannot open %s: %s", path, strerror(err));
	}
	return 0;
}

int outfile_close(struct outfile *o, struct error *e)
{
	int err = 0;
	if (fflush(o->f) == EOF || ferror(o->f))
		err = errno ? errno : EIO;
	if (!o->tmp) {
		if (o->f != stdout && fclose(o->f) == EOF && !err)
			err = errno;
		o->f = NULL;
		return err ? error_set(e, "%s: write failed: %s",
				       strcmp(o->path, "-") ? o->path : "stdout",
				       strerror(err)) : 0;
	}
	if (fclose(o->f) == EOF && !err)
		err = errno;
	o->f = NULL;
	if (!err && rename(o->tmp, o->path) != 0)
		err = errno;
	if (err)
		unlink(o->tmp);
	track(o->tmp, 0);
	free(o->tmp);
	o->tmp = NULL;
	return err ? error_set(e, "%s: write failed: %s", o->path,
			       strerror(err)) : 0;
}

void outfile_abort(struct outfile *o)
{
	if (!o->tmp && o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp) {
		fclose(o->f);
		unlink(o->tmp);
		track(o->tmp, 0);
		free(o->tmp);
		o->tmp = NULL;
	}
	o->f = NULL;
}
