#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Temporary files still open, removed by an exit handler so that die()
 * anywhere in a program leaves nothing under a half-written name. */
#define MAX_PENDING 16
static char *pending[MAX_PENDING];

static void remove_pending(void)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i]) {
			unlink(pending[i]);
			pending[i] = NULL;
		}
}

static void track(char *tmp, int on)
{
	static int registered;
	if (!registered) {
		atexit(remove_pending);
		registered = 1;
	}
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
	int fd = mkstemp(o->tmp);
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
		free(o->tmp);
		o->tmp = NULL;
		return error_set(e, "cannot open %s: %s", path, strerror(err));
	}
	track(o->tmp, 1);
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
