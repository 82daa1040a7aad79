/* grid.c - reader and writer of the grid stream, pleat-grid(5). */
#include "grid.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pleat's grid I/O assumes a little-endian host"
#endif

static const struct {
	const char *name;
	size_t size;
} grid_types[GRID_NTYPES] = {
	[GRID_U8] = {"u8", 1},   [GRID_U16] = {"u16", 2}, [GRID_U32] = {"u32", 4},
	[GRID_I32] = {"i32", 4}, [GRID_F16] = {"f16", 2}, [GRID_F32] = {"f32", 4},
	[GRID_F64] = {"f64", 8},
};

const char *grid_type_name(enum grid_type t) { return grid_types[t].name; }
size_t grid_type_size(enum grid_type t) { return grid_types[t].size; }

int grid_type_parse(const char *s, enum grid_type *t)
{
	for (int i = 0; i < GRID_NTYPES; i++)
		if (strcmp(s, grid_types[i].name) == 0) {
			*t = (enum grid_type)i;
			return 0;
		}
	return -1;
}

/* ---- geometry and channels ------------------------------------------ */

static int check_geometry(int width, int height, double cell,
			  const double origin[2], struct error *e)
{
	if (width < 1 || height < 1 || width > GRID_MAX_SIDE ||
	    height > GRID_MAX_SIDE)
		return error_set(e, "grid size %d x %d is outside 1..%d",
				 width, height, GRID_MAX_SIDE);
	if ((int64_t)width * height >= GRID_MAX_VERTICES)
		return error_set(e, "grid size %d x %d has 2^31 vertices or more",
				 width, height);
	if (!(cell > 0) || !isfinite(cell))
		return error_set(e, "cell size %g is not a positive number", cell);
	if (!isfinite(origin[0]) || !isfinite(origin[1]))
		return error_set(e, "origin is not finite");
	return 0;
}

int grid_init(struct grid *g, int width, int height, double cell,
	      const double origin[2], struct error *e)
{
	memset(g, 0, sizeof *g);
	if (check_geometry(width, height, cell, origin, e))
		return -1;
	g->width = width;
	g->height = height;
	g->cell = cell;
	g->origin[0] = origin[0];
	g->origin[1] = origin[1];
	return 0;
}

void grid_free(struct grid *g)
{
	for (int i = 0; i < g->nchannels; i++)
		free(g->channels[i].data);
	for (int i = 0; i < g->nextra; i++)
		free(g->extra[i]);
	memset(g, 0, sizeof *g);
}

size_t grid_vertices(const struct grid *g)
{
	return (size_t)g->width * (size_t)g->height;
}

/* Sizes were checked when the channel was added, so this cannot overflow. */
size_t grid_channel_bytes(const struct grid *g, const struct grid_channel *c)
{
	return grid_vertices(g) * (size_t)c->comps * grid_type_size(c->type);
}

struct grid_channel *grid_find(const struct grid *g, const char *name)
{
	for (int i = 0; i < g->nchannels; i++)
		if (strcmp(g->channels[i].name, name) == 0)
			return (struct grid_channel *)&g->channels[i];
	return NULL;
}

struct grid_channel *grid_find_typed(const struct grid *g, const char *name,
				     enum grid_type type, int comps)
{
	struct grid_channel *c = grid_find(g, name);
	if (c && (c->type != type || c->comps != comps))
		return NULL;
	return c;
}

/* Names: 1..31 characters of [a-z0-9_.-], starting with a letter. */
static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || n > GRID_MAX_NAME || !(s[0] >= 'a' && s[0] <= 'z'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return 0;
	return 1;
}

/* Bytes of one channel of the given type, or -1 when it overflows. */
static int channel_size(const struct grid *g, enum grid_type type, int comps,
			size_t *bytes)
{
	size_t n;
	if (size_mul(grid_vertices(g), (size_t)comps, &n) ||
	    size_mul(n, grid_type_size(type), bytes))
		return -1;
	return 0;
}

static struct grid_channel *add_channel(struct grid *g, const char *name,
					enum grid_type type, int comps,
					int allocate, struct error *e)
{
	size_t bytes;
	if (!valid_name(name)) {
		error_set(e, "bad channel name '%s'", name);
		return NULL;
	}
	if (comps < 1 || comps > GRID_MAX_COMPONENTS) {
		error_set(e, "channel '%s' has %d components (1..%d allowed)",
			  name, comps, GRID_MAX_COMPONENTS);
		return NULL;
	}
	if (g->nchannels == GRID_MAX_CHANNELS) {
		error_set(e, "more than %d channels", GRID_MAX_CHANNELS);
		return NULL;
	}
	if (channel_size(g, type, comps, &bytes)) {
		error_set(e, "channel '%s' of %d x %d x %d %s overflows", name,
			  g->width, g->height, comps, grid_type_name(type));
		return NULL;
	}
	struct grid_channel *c = &g->channels[g->nchannels];
	memset(c, 0, sizeof *c);
	strcpy(c->name, name);
	c->type = type;
	c->comps = comps;
	if (allocate) {
		c->data = big_alloc(bytes);
		if (c->data)
			memset(c->data, 0, bytes);
		if (!c->data) {
			error_set(e, "out of memory for channel '%s' (%zu bytes)",
				  name, bytes);
			return NULL;
		}
	}
	g->nchannels++;
	return c;
}

struct grid_channel *grid_add(struct grid *g, const char *name,
			      enum grid_type type, int comps, struct error *e)
{
	struct grid_channel *c = grid_find(g, name);
	if (c) {
		if (c->type == type && c->comps == comps)
			return c;
		error_set(e, "channel '%s' is %s x %d, expected %s x %d", name,
			  grid_type_name(c->type), c->comps, grid_type_name(type),
			  comps);
		return NULL;
	}
	return add_channel(g, name, type, comps, 1, e);
}

void grid_remove(struct grid *g, const char *name)
{
	struct grid_channel *c = grid_find(g, name);
	if (!c)
		return;
	free(c->data);
	int i = (int)(c - g->channels);
	memmove(c, c + 1, (size_t)(g->nchannels - i - 1) * sizeof *c);
	g->nchannels--;
}

/* ---- optional header keys ------------------------------------------- */

static int key_matches(const char *line, const char *key)
{
	size_t n = strlen(key);
	return strncmp(line, key, n) == 0 && (line[n] == ' ' || line[n] == '\0');
}

const char *grid_get_extra(const struct grid *g, const char *key)
{
	for (int i = 0; i < g->nextra; i++)
		if (key_matches(g->extra[i], key)) {
			const char *v = g->extra[i] + strlen(key);
			return *v == ' ' ? v + 1 : v;
		}
	return NULL;
}

static int valid_text(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

int grid_set_extra(struct grid *g, const char *key, const char *value,
		   struct error *e)
{
	if (!valid_name(key) || !valid_text(value))
		return error_set(e, "bad header key '%s'", key);
	size_t n = strlen(key) + 1 + strlen(value) + 1;
	char *line = malloc(n);
	if (!line)
		return error_set(e, "out of memory");
	snprintf(line, n, "%s%s%s", key, *value ? " " : "", value);
	for (int i = 0; i < g->nextra; i++)
		if (key_matches(g->extra[i], key)) {
			free(g->extra[i]);
			g->extra[i] = line;
			return 0;
		}
	if (g->nextra == GRID_MAX_EXTRA) {
		free(line);
		return error_set(e, "more than %d optional header keys",
				 GRID_MAX_EXTRA);
	}
	g->extra[g->nextra++] = line;
	return 0;
}

/* ---- checksum --------------------------------------------------------- */

uint64_t grid_checksum(const struct grid *g)
{
	XXH3_state_t st;
	XXH3_64bits_reset(&st);
	for (int i = 0; i < g->nchannels; i++)
		XXH3_64bits_update(&st, g->channels[i].data,
				   grid_channel_bytes(g, &g->channels[i]));
	return XXH3_64bits_digest(&st);
}

/* ---- reading ---------------------------------------------------------- */

/* A byte source: a stdio stream or a memory buffer (for fuzzing). */
struct source {
	FILE *f;
	const unsigned char *buf;
	size_t len, pos;
	uint64_t offset;     /* bytes consumed */
	int io_error;        /* errno of a failed read, 0 if none */
};

static int src_getc(struct source *s)
{
	int c;
	if (s->f) {
		c = getc(s->f);
		if (c == EOF && ferror(s->f))
			s->io_error = errno ? errno : EIO;
	} else {
		c = s->pos < s->len ? s->buf[s->pos++] : EOF;
	}
	if (c != EOF)
		s->offset++;
	return c;
}

static size_t src_read(struct source *s, void *dst, size_t n)
{
	size_t got;
	if (s->f) {
		got = fread(dst, 1, n, s->f);
		if (got < n && ferror(s->f))
			s->io_error = errno ? errno : EIO;
	} else {
		got = s->len - s->pos < n ? s->len - s->pos : n;
		memcpy(dst, s->buf + s->pos, got);
		s->pos += got;
	}
	s->offset += got;
	return got;
}

/* What the header states, before it is checked as a whole. */
struct header {
	int line;                        /* current line number, 1-based */
	int have_size, have_cell, have_origin, have_payload, have_checksum;
	uint64_t payload, checksum;
};

/* Prefix for messages: "NAME: grid N: ". */
struct where {
	const char *name;
	int index;
};

#define HEADER_LINE_MAX 4096

/* Reads one header line (without '\n', a trailing '\r' kept so that it is
 * reported as bad).  Returns the length, -1 at EOF before any byte, -2
 * at EOF inside the line, -3 when the line is too long, -4 on NUL. */
static int read_line(struct source *s, char *line, int max)
{
	int n = 0, c;
	while ((c = src_getc(s)) != EOF && c != '\n') {
		if (c == '\0')
			return -4;
		if (n == max - 1)
			return -3;
		line[n++] = (char)c;
	}
	line[n] = '\0';
	if (c == EOF)
		return n == 0 ? -1 : -2;
	return n;
}

/* Header numbers are plain decimals: no sign but '-', no spaces, no hex. */
static int plain_number(const char *s)
{
	if (*s == '-')
		s++;
	return (*s >= '0' && *s <= '9') || *s == '.';
}

static int parse_int_word(const char *s, long long lo, long long hi,
			  long long *out)
{
	char *end;
	if (!plain_number(s))
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_real_word(const char *s, double *out)
{
	char *end;
	if (!plain_number(s) || strpbrk(s, "xXpP"))
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* Splits line into at most max words at single spaces; returns the count,
 * or -1 when a word is empty (double or trailing space, tab, CR). */
static int split_words(char *line, char **w, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		if (n == max)
			return n + 1;
		w[n++] = p;
		char *sp = strchr(p, ' ');
		if (sp)
			*sp = '\0';
		if (*p == '\0' || strpbrk(p, "\t\r\v\f"))
			return -1;
		if (!sp)
			return n;
		p = sp + 1;
	}
}

static int herr(const struct where *w, const struct header *h,
		struct error *e, const char *what, const char *detail)
{
	/* detail is a word of the input: at most 40 bytes of it, unprintable
	 * ones as '?', so hostile input cannot put control characters on a
	 * terminal. */
	char shown[48];
	size_t k = 0;
	for (; detail[k] && k < 40; k++) {
		unsigned char c = (unsigned char)detail[k];
		shown[k] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (detail[k])
		shown[k++] = '.', shown[k++] = '.', shown[k++] = '.';
	shown[k] = '\0';
	return error_set(e, "%s: grid %d: header line %d: %s%s", w->name,
			 w->index, h->line, what, shown);
}

static int parse_magic(char *line, const struct where *w, struct header *h,
		       struct error *e)
{
	size_t n = strlen(GRID_MAGIC);
	long long major, minor;
	if (strncmp(line, GRID_MAGIC " ", n + 1) != 0)
		return error_set(e, "%s: grid %d: not a pleat grid stream "
				 "(bad magic)", w->name, w->index);
	char *ver = line + n + 1, *dot = strchr(ver, '.');
	if (!dot)
		return herr(w, h, e, "bad version ", ver);
	*dot = '\0';
	if (parse_int_word(ver, 0, 999, &major) ||
	    parse_int_word(dot + 1, 0, 999, &minor))
		return herr(w, h, e, "bad version", "");
	if (major != GRID_VERSION_MAJOR)
		return error_set(e, "%s: grid %d: format version %lld.%lld is not "
				 "supported (this pleat reads %d.x)", w->name,
				 w->index, major, minor, GRID_VERSION_MAJOR);
	return 0;
}

static int parse_channel(char **word, int nw, struct grid *g,
			 const struct where *w, struct header *h,
			 struct error *e)
{
	enum grid_type type;
	long long comps;
	struct error sub;
	if (nw != 4)
		return herr(w, h, e, "channel needs a name, a type and a "
			    "component count", "");
	if (grid_type_parse(word[2], &type))
		return herr(w, h, e, "unknown channel type ", word[2]);
	if (parse_int_word(word[3], 1, GRID_MAX_COMPONENTS, &comps))
		return herr(w, h, e, "bad component count ", word[3]);
	if (grid_find(g, word[1]))
		return herr(w, h, e, "duplicate channel ", word[1]);
	/* Geometry comes first, so the size can be checked now; data is
	 * allocated only after the whole header has been checked. */
	if (!add_channel(g, word[1], type, (int)comps, 0, &sub))
		return herr(w, h, e, sub.msg, "");
	return 0;
}

static int parse_checksum(char **word, int nw, const struct where *w,
			  struct header *h, struct error *e)
{
	char *end;
	if (nw != 3 || strcmp(word[1], "xxh3") != 0)
		return herr(w, h, e, "checksum must be 'checksum xxh3 HEX'", "");
	if (strlen(word[2]) != 16 || strspn(word[2], "0123456789abcdef") != 16)
		return herr(w, h, e, "bad checksum value ", word[2]);
	h->checksum = strtoull(word[2], &end, 16);
	h->have_checksum = 1;
	return 0;
}

/* One "key value..." line of the header; known keys set fields of g or h,
 * unknown ones are kept verbatim in g->extra. */
static int parse_key(char *line, struct grid *g, const struct where *w,
		     struct header *h, struct error *e)
{
	char copy[HEADER_LINE_MAX], *word[8];
	long long a, b;
	strcpy(copy, line);
	int nw = split_words(line, word, 8);
	if (nw < 1)
		return herr(w, h, e, "malformed line (keys and values are "
			    "separated by single spaces)", "");
	const char *key = word[0];
	int geometry = h->have_size && h->have_cell && h->have_origin;
	if (strcmp(key, "size") == 0) {
		if (h->have_size || nw != 3 ||
		    parse_int_word(word[1], 1, GRID_MAX_SIDE, &a) ||
		    parse_int_word(word[2], 1, GRID_MAX_SIDE, &b))
			return herr(w, h, e, "bad or repeated size (1..1048576 "
				    "each way)", "");
		if (a * b >= GRID_MAX_VERTICES)
			return herr(w, h, e, "size has 2^31 vertices or more", "");
		g->width = (int)a;
		g->height = (int)b;
		h->have_size = 1;
	} else if (strcmp(key, "cell") == 0) {
		if (h->have_cell || nw != 2 || parse_real_word(word[1], &g->cell) ||
		    !(g->cell > 0))
			return herr(w, h, e, "bad or repeated cell size", "");
		h->have_cell = 1;
	} else if (strcmp(key, "origin") == 0) {
		if (h->have_origin || nw != 3 ||
		    parse_real_word(word[1], &g->origin[0]) ||
		    parse_real_word(word[2], &g->origin[1]))
			return herr(w, h, e, "bad or repeated origin", "");
		h->have_origin = 1;
	} else if (strcmp(key, "channel") == 0) {
		if (!geometry)
			return herr(w, h, e, "channel before size, cell and origin", "");
		return parse_channel(word, nw, g, w, h, e);
	} else if (strcmp(key, "payload") == 0) {
		if (h->have_payload || nw != 2 ||
		    parse_int_word(word[1], 0, INT64_MAX, &a))
			return herr(w, h, e, "bad or repeated payload size", "");
		h->payload = (uint64_t)a;
		h->have_payload = 1;
	} else if (strcmp(key, "checksum") == 0) {
		if (h->have_checksum)
			return herr(w, h, e, "repeated checksum", "");
		return parse_checksum(word, nw, w, h, e);
	} else {
		if (!valid_name(key) || !valid_text(copy))
			return herr(w, h, e, "bad key ", key);
		if (grid_get_extra(g, key))
			return herr(w, h, e, "repeated key ", key);
		if (g->nextra == GRID_MAX_EXTRA)
			return herr(w, h, e, "too many optional keys", "");
		g->extra[g->nextra] = strdup(copy);
		if (!g->extra[g->nextra])
			return error_set(e, "out of memory");
		g->nextra++;
	}
	return 0;
}

static uint64_t physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || size <= 0)
		return UINT64_MAX;
	return (uint64_t)pages * (uint64_t)size;
}

/* The header as a whole: required keys, payload size consistent with the
 * channels, and within the machine's memory. */
static int check_header(struct grid *g, const struct where *w,
			struct header *h, struct error *e)
{
	size_t total = 0;
	if (!h->have_size || !h->have_cell || !h->have_origin ||
	    !h->have_payload || !h->have_checksum)
		return error_set(e, "%s: grid %d: header lacks %s", w->name,
				 w->index,
				 !h->have_size ? "size" : !h->have_cell ? "cell" :
				 !h->have_origin ? "origin" :
				 !h->have_payload ? "payload" : "checksum");
	for (int i = 0; i < g->nchannels; i++)
		if (size_add(total, grid_channel_bytes(g, &g->channels[i]), &total))
			return error_set(e, "%s: grid %d: payload size overflows",
					 w->name, w->index);
	if ((uint64_t)total != h->payload)
		return error_set(e, "%s: grid %d: header says payload %llu bytes "
				 "but its channels hold %zu", w->name, w->index,
				 (unsigned long long)h->payload, total);
	uint64_t mem = physical_memory();
	if (h->payload > mem)
		return error_set(e, "%s: grid %d: needs %llu MiB, more than this "
				 "machine's %llu MiB of memory", w->name, w->index,
				 (unsigned long long)(h->payload >> 20),
				 (unsigned long long)(mem >> 20));
	return 0;
}

static int read_header(struct source *s, struct grid *g, struct header *h,
		       const struct where *w, struct error *e)
{
	char line[HEADER_LINE_MAX];
	uint64_t start = s->offset;
	for (h->line = 1;; h->line++) {
		int n = read_line(s, line, h->line == 1 ? 64 : HEADER_LINE_MAX);
		if (n == -1 && h->line == 1 && !s->io_error)
			return 0;                       /* clean end of stream */
		if (n == -1 || n == -2)
			return s->io_error ?
				error_set(e, "%s: grid %d: read error: %s", w->name,
					  w->index, strerror(s->io_error)) :
				error_set(e, "%s: grid %d: truncated: stream ends "
					  "inside the header", w->name, w->index);
		if (h->line == 1 && n < 0)
			return error_set(e, "%s: grid %d: not a pleat grid stream "
					 "(bad magic)", w->name, w->index);
		if (n == -3)
			return herr(w, h, e, "line too long", "");
		if (n == -4)
			return herr(w, h, e, "NUL byte in header", "");
		if (s->offset - start > GRID_MAX_HEADER)
			return error_set(e, "%s: grid %d: header longer than %d bytes",
					 w->name, w->index, GRID_MAX_HEADER);
		if (h->line == 1) {
			if (parse_magic(line, w, h, e))
				return -1;
		} else if (strcmp(line, "end") == 0) {
			return check_header(g, w, h, e) ? -1 : 1;
		} else if (parse_key(line, g, w, h, e)) {
			return -1;
		}
	}
}

/* From a stream of unknown length (a pipe) a channel buffer starts at
 * 256 MiB and grows fourfold as data arrives, so a truncated stream whose
 * header claims gigabytes fails as truncated having allocated at most
 * 256 MiB or four times what it sent.  Each step is a fresh big_alloc
 * (aligned for huge pages) and one copy: growing by realloc in 64 MiB
 * steps measured 0.23 s instead of 0.13 s for a 208 MB grid through a
 * pipe.  256 MiB holds a 4096 x 4096 f32 x 3 channel in one step (the
 * largest of the standard ladder); untouched pages cost nothing. */
#define READ_CHUNK ((size_t)256 << 20)
#define READ_GROWTH 4

/* Bytes left in the source, or SIZE_MAX when unknown (a pipe). */
static size_t bytes_left(const struct source *s)
{
	struct stat st;
	if (!s->f)
		return s->len - s->pos;
	off_t pos = ftello(s->f);
	if (pos < 0 || fstat(fileno(s->f), &st) || !S_ISREG(st.st_mode) ||
	    st.st_size < pos)
		return SIZE_MAX;
	return (size_t)(st.st_size - pos);
}

/* The next capacity of a buffer of n bytes that holds cap. */
static size_t next_capacity(size_t cap, size_t n)
{
	size_t c = cap ? cap : READ_CHUNK;
	if (cap && size_mul(cap, READ_GROWTH, &c))
		c = n;
	return c < n ? c : n;
}

/* Reads n bytes into a new buffer *out: allocated at once when the source
 * is known to hold them, else grown as above (a short regular file reads
 * to its end and fails; a memory source fails before allocating).
 * Returns 0, -1 when out of memory, -2 on a short read (*got bytes were
 * there; s->io_error tells a read error from truncation). */
static int read_data(struct source *s, size_t n, void **out, size_t *got)
{
	unsigned char *buf = NULL, *p;
	size_t left = bytes_left(s), cap = 0;
	int known = left != SIZE_MAX && left >= n;
	*out = NULL;
	*got = 0;
	if (!s->f && left < n) {
		*got = left;
		s->pos = s->len;
		s->offset += left;
		return -2;
	}
	do {
		cap = known ? n : next_capacity(cap, n);
		if (!(p = big_alloc(cap))) {
			free(buf);
			return -1;
		}
		if (buf)
			memcpy(p, buf, *got);
		free(buf);
		buf = p;
		size_t want = cap - *got, r = src_read(s, buf + *got, want);
		*got += r;
		if (r < want) {
			free(buf);
			return -2;
		}
	} while (*got < n);
	*out = buf;
	return 0;
}

static int read_payload(struct source *s, struct grid *g,
			const struct header *h, const struct where *w,
			struct error *e)
{
	XXH3_state_t st;
	XXH3_64bits_reset(&st);
	for (int i = 0; i < g->nchannels; i++) {
		struct grid_channel *c = &g->channels[i];
		size_t bytes = grid_channel_bytes(g, c), got;
		int r = read_data(s, bytes, &c->data, &got);
		if (r == -1)
			return error_set(e, "%s: grid %d: out of memory for channel "
					 "'%s' (%zu bytes)", w->name, w->index,
					 c->name, bytes);
		if (r < 0)
			return s->io_error ?
				error_set(e, "%s: grid %d: read error: %s", w->name,
					  w->index, strerror(s->io_error)) :
				error_set(e, "%s: grid %d: truncated: stream ends in "
					  "channel '%s' (%zu of %zu bytes)", w->name,
					  w->index, c->name, got, bytes);
		XXH3_64bits_update(&st, c->data, bytes);
	}
	uint64_t sum = XXH3_64bits_digest(&st);
	if (sum != h->checksum)
		return error_set(e, "%s: grid %d: checksum mismatch: the payload "
				 "is damaged (header %016llx, data %016llx)",
				 w->name, w->index,
				 (unsigned long long)h->checksum,
				 (unsigned long long)sum);
	return 0;
}

static int read_grid(struct source *s, struct grid *g, const struct where *w,
		     struct error *e)
{
	struct header h;
	memset(&h, 0, sizeof h);
	memset(g, 0, sizeof *g);
	int r = read_header(s, g, &h, w, e);
	if (r == 1)
		r = read_payload(s, g, &h, w, e) ? -1 : 1;
	if (r != 1)
		grid_free(g);
	return r;
}

/* How messages name a stream: "-" is standard input. */
static const char *stream_name(const char *name)
{
	return strcmp(name, "-") ? name : "standard input";
}

int grid_error_empty(const char *name, struct error *e)
{
	return error_set(e, "%s: no grid in the input (it is empty)",
			 stream_name(name));
}

int grid_read(struct grid_reader *r, struct grid *g, struct error *e)
{
	if (r->index == 0 && r->offset == 0 && isatty(fileno(r->f))) {
		memset(g, 0, sizeof *g);
		return error_set(e, "%s is a terminal: grids are binary; give "
				 "a grid file or pipe grids in",
				 stream_name(r->name));
	}
	struct source s = {.f = r->f, .offset = r->offset};
	struct where w = {r->name, r->index + 1};
	int res = read_grid(&s, g, &w, e);
	r->offset = s.offset;
	if (res == 1)
		r->index++;
	return res;
}

int grid_equal(const struct grid *a, const struct grid *b)
{
	if (a->width != b->width || a->height != b->height ||
	    a->cell != b->cell || a->origin[0] != b->origin[0] ||
	    a->origin[1] != b->origin[1] || a->nchannels != b->nchannels ||
	    a->nextra != b->nextra)
		return 0;
	for (int i = 0; i < a->nextra; i++)
		if (strcmp(a->extra[i], b->extra[i]))
			return 0;
	for (int i = 0; i < a->nchannels; i++) {
		const struct grid_channel *p = &a->channels[i], *q = &b->channels[i];
		if (strcmp(p->name, q->name) || p->type != q->type ||
		    p->comps != q->comps ||
		    memcmp(p->data, q->data, grid_channel_bytes(a, p)))
			return 0;
	}
	return 1;
}

int grid_load(const char *path, struct grid *g, struct error *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return error_set(e, "cannot open %s: %s", path, strerror(errno));
	struct grid_reader r = {.f = f, .name = path};
	int res = grid_read(&r, g, e);
	fclose(f);
	if (res == 0)
		return error_set(e, "%s: holds no grid (the file is empty)", path);
	return res < 0 ? -1 : 0;
}

int grid_each(FILE *f, const char *name, grid_visit *visit, void *arg,
	      struct error *e)
{
	struct grid_reader r = {.f = f, .name = name};
	struct grid g;
	int res;
	while ((res = grid_read(&r, &g, e)) == 1) {
		visit(&g, r.index, arg);
		grid_free(&g);
	}
	if (res == 0 && r.index == 0)
		return grid_error_empty(name, e);
	return res < 0 ? -1 : r.index;
}

int grid_each_path(const char *path, grid_visit *visit, void *arg,
		   struct error *e)
{
	int stdin_input = strcmp(path, "-") == 0;
	FILE *f = stdin_input ? stdin : fopen(path, "rb");
	if (!f)
		return error_set(e, "cannot open %s: %s", path, strerror(errno));
	if (stdin_input)
		widen_pipe(fileno(stdin));
	int n = grid_each(f, path, visit, arg, e);
	if (!stdin_input)
		fclose(f);
	return n;
}

int grid_read_mem(const void *buf, size_t len, const char *name,
		  struct grid *g, size_t *used, struct error *e)
{
	struct source s = {.buf = buf, .len = len};
	struct where w = {name, 1};
	int res = read_grid(&s, g, &w, e);
	if (used)
		*used = s.pos;
	return res;
}

/* ---- writing ---------------------------------------------------------- */

static int write_header(const struct grid *g, FILE *f, uint64_t payload,
			uint64_t sum)
{
	fprintf(f, "%s %d.%d\n", GRID_MAGIC, GRID_VERSION_MAJOR,
		GRID_VERSION_MINOR);
	fprintf(f, "size %d %d\n", g->width, g->height);
	fprintf(f, "cell %.17g\n", g->cell);
	fprintf(f, "origin %.17g %.17g\n", g->origin[0], g->origin[1]);
	for (int i = 0; i < g->nchannels; i++)
		fprintf(f, "channel %s %s %d\n", g->channels[i].name,
			grid_type_name(g->channels[i].type), g->channels[i].comps);
	for (int i = 0; i < g->nextra; i++)
		fprintf(f, "%s\n", g->extra[i]);
	fprintf(f, "payload %llu\n", (unsigned long long)payload);
	fprintf(f, "checksum xxh3 %016llx\n", (unsigned long long)sum);
	return fputs("end\n", f) == EOF ? -1 : 0;
}

int grid_write(const struct grid *g, FILE *f, const char *name,
	       struct error *e)
{
	uint64_t payload = 0;
	for (int i = 0; i < g->nchannels; i++)
		payload += grid_channel_bytes(g, &g->channels[i]);
	if (write_header(g, f, payload, grid_checksum(g)) == 0)
		for (int i = 0; i < g->nchannels; i++) {
			size_t n = grid_channel_bytes(g, &g->channels[i]);
			if (fwrite(g->channels[i].data, 1, n, f) != n)
				break;
		}
	if (fflush(f) == EOF || ferror(f))
		return error_set(e, "%s: write failed: %s", name, strerror(errno));
	return 0;
}
