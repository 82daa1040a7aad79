/* progress.h - progress lines on stderr, shown only when stderr is a
 * terminal or the user asked for them (--progress). */
#ifndef PLEAT_PROGRESS_H
#define PLEAT_PROGRESS_H

/* mode: -1 automatic (terminal only), 0 never, 1 always. */
void progress_init(int mode);
int progress_enabled(void);
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Wall-clock seconds from an arbitrary start, for timings. */
double now_seconds(void);

#endif
