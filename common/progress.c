#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static int enabled;

void progress_init(int mode)
{
	enabled = mode < 0 ? isatty(STDERR_FILENO) : mode;
}

int progress_enabled(void) { return enabled; }

void progress(const char *fmt, ...)
{
	if (!enabled)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
