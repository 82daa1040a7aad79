/* model.cc - an execution model of CUDA on the CPU.
 *
 * pleat's .cu files are compiled by the host C++ compiler against
 * cuda_runtime.h in this folder and run here, so that every test run
 * executes every kernel, on machines without a GPU.  What the model
 * does, and what it checks that a GPU would not tell us:
 *
 *  - A launch runs its blocks one after another, and a block's threads
 *    as fibers on one stack each: a thread runs until it reaches
 *    __syncthreads or returns, then the next one runs.  When every
 *    thread of the block waits at the same barrier, they are released
 *    together.  A barrier that some threads reach while the others
 *    return, or threads waiting at different barriers, fail the launch
 *    (on a GPU: a hang or undefined behaviour).
 *  - The order of the threads within each of those rounds, and of the
 *    blocks, is PLEAT_CUDA_MODEL_ORDER: forward (the default), reverse,
 *    or shuffle[:SEED] (a new seeded permutation for every round).  A
 *    kernel whose results change with the order has a race.
 *  - Shared memory (__shared__) is one section of the program, filled
 *    with NaNs (all bits set) before each block.
 *  - Device memory comes from a reserved range of addresses of its own;
 *    each allocation is filled with NaNs, is followed by an inaccessible
 *    page and is never reused once freed.  cudaMemcpy and cudaMemset
 *    check that each pointer is device or host memory as the call says
 *    and that the bytes lie in one allocation.  At a normal exit (status
 *    0), allocations never freed are listed and the exit status becomes
 *    1 (PLEAT_CUDA_MODEL_LEAKS=0 turns that off).
 *  - The .cu files are instrumented (-fsanitize=thread, whose calls
 *    before every load and store reach check_access below; no sanitizer
 *    runtime is linked).  A kernel may touch device memory inside a live
 *    allocation, shared memory, its own stack, the launch's parameters,
 *    and read the program's constants; anything else (a host pointer,
 *    out of bounds, freed memory) fails the launch with
 *    cudaErrorIllegalAddress and a message naming the kernel, the block,
 *    the thread and the address.  Host code that reads or writes device
 *    memory is stopped (abort), as a GPU's page fault would.
 *  - Races: every byte of shared and device memory remembers the last
 *    thread that wrote it and the last that read it, with its block and
 *    the barrier interval it was in.  An access that conflicts with one
 *    by another thread that no barrier orders before it (a different
 *    block, or the same barrier interval) fails the launch with
 *    cudaErrorLaunchFailure: read after write, write after read, write
 *    after write.  A read of shared memory that no thread of the block
 *    has written fails it too.  Atomics are not races.
 *    PLEAT_CUDA_MODEL_RACECHECK=0 turns the bookkeeping off (speed).
 *
 * A failed launch makes the error sticky, as a GPU's context is after a
 * fault: every later call returns it.  Messages go to standard error as
 * "PROGRAM: cuda model: ...". */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if !defined(__x86_64__) || defined(CUDAMODEL_UCONTEXT)
#include <ucontext.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "cuda_runtime.h"
#include "model_cub.h"

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

/* Where the linker puts __shared__ variables (none: both NULL). */
extern "C" {
extern char __start_cudamodel_shared[] __attribute__((weak));
extern char __stop_cudamodel_shared[] __attribute__((weak));
}

namespace cudamodel {
namespace {

/* ---- messages ----------------------------------------------------------- */

__attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: cuda model: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The code address pc as a file offset, for addr2line. */
void say_where(const void *pc)
{
	Dl_info info;
	if (pc && dladdr(pc, &info) && info.dli_fname)
		say("  at %s+%#lx (addr2line -i -f -e %s %#lx)", info.dli_fname,
		    (unsigned long)((const char *)pc - (const char *)info.dli_fbase),
		    info.dli_fname,
		    (unsigned long)((const char *)pc - (const char *)info.dli_fbase));
}

/* ---- errors ------------------------------------------------------------- */

cudaError_t sticky = cudaSuccess;  /* a failed launch: every call after */
cudaError_t last = cudaSuccess;    /* for cudaGetLastError */

cudaError_t returned(cudaError_t err)
{
	if (err != cudaSuccess)
		last = err;
	return err;
}

/* ---- device memory ------------------------------------------------------ */

const size_t ARENA_BYTES = (size_t)1 << 38;    /* address space */
const size_t DEVICE_BYTES = (size_t)16 << 30;  /* what the device holds */

/* An access to a 4-byte word, for the race check: the launch serial (of
 * the block, in shared memory; 0: none), the thread, the barrier
 * interval, and which bytes of the word. */
struct access {
	uint32_t launch, thread;
	uint16_t epoch;
	uint8_t bytes;
};
/* A word's last write, and up to two reads by different threads since
 * (two are enough: a write then conflicts with one of them unless every
 * read was its own thread's). */
struct word_shadow {
	access write, read[2];
};

struct allocation {
	uintptr_t base;
	size_t bytes;
	const char *file, *freed_file;
	int line, freed_line;
	bool live;
	word_shadow *shadow;     /* with the race check, made at first use */
};

uintptr_t arena_lo, arena_hi, arena_next;
size_t device_used;
std::vector<allocation> allocations;  /* by base: addresses only grow */
size_t page;

bool arena_init()
{
	if (arena_lo)
		return true;
	page = (size_t)sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, ARENA_BYTES, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		say("cannot reserve address space for device memory: %s",
		    strerror(errno));
		return false;
	}
	arena_lo = arena_next = (uintptr_t)p;
	arena_hi = arena_lo + ARENA_BYTES;
	return true;
}

bool in_arena(uintptr_t a)
{
	return a >= arena_lo && a < arena_hi;
}

/* The allocation whose range holds address a, live or freed, or NULL. */
allocation *allocation_at(uintptr_t a)
{
	static size_t hit;     /* the last one found: most checks ask again */
	if (hit < allocations.size() && a >= allocations[hit].base &&
	    a < allocations[hit].base + allocations[hit].bytes)
		return &allocations[hit];
	auto it = std::upper_bound(allocations.begin(), allocations.end(), a,
				   [](uintptr_t v, const allocation &x) {
					   return v < x.base;
				   });
	if (it == allocations.begin())
		return NULL;
	--it;
	if (a >= it->base + it->bytes)
		return NULL;
	hit = (size_t)(it - allocations.begin());
	return &*it;
}

/* Whether bytes from p are device memory of one live allocation; the
 * reason in why when not. */
bool device_span(const void *p, size_t bytes, char *why, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	if (!in_arena(a)) {
		snprintf(why, n, "%p is not device memory (a host pointer?)", p);
		return false;
	}
	allocation *al = allocation_at(a);
	if (!al) {
		snprintf(why, n, "%p is in no allocation of device memory", p);
		return false;
	}
	if (!al->live) {
		snprintf(why, n, "%p is in an allocation of %zu bytes (%s:%d) "
			 "freed at %s:%d", p, al->bytes, al->file, al->line,
			 al->freed_file, al->freed_line);
		return false;
	}
	if (bytes > al->base + al->bytes - a) {
		snprintf(why, n, "%zu bytes from %p run %zu bytes past the end "
			 "of an allocation of %zu bytes (%s:%d)", bytes, p,
			 (size_t)(bytes - (al->base + al->bytes - a)), al->bytes,
			 al->file, al->line);
		return false;
	}
	return true;
}

/* ---- the leak check at exit -------------------------------------------- */

void leaks_at_exit(int status, void *)
{
	const char *env = getenv("PLEAT_CUDA_MODEL_LEAKS");
	if (status != 0 || (env && strcmp(env, "0") == 0))
		return;
	size_t count = 0, bytes = 0;
	for (const allocation &al : allocations)
		if (al.live) {
			if (count < 8)
				say("leak: %zu bytes of device memory allocated at "
				    "%s:%d never freed", al.bytes, al.file, al.line);
			count++;
			bytes += al.bytes;
		}
	if (!count)
		return;
	say("%zu allocations of device memory (%zu bytes) never freed",
	    count, bytes);
	fflush(NULL);
	_exit(1);
}

/* ---- the program's own memory: what a kernel may read as constants ---- */

struct segment {
	uintptr_t lo, hi;
};
std::vector<segment> program_segments;

/* The read-only segments of the program: its code and constants, some of
 * which the compiler makes (tables for a switch, say).  Its writable
 * data is host memory, but for the kernel language's built-in
 * variables. */
int note_segments(struct dl_phdr_info *info, size_t, void *)
{
	/* the first object is the program itself */
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_W))
			program_segments.push_back(
				{info->dlpi_addr + ph->p_vaddr,
				 info->dlpi_addr + ph->p_vaddr + ph->p_memsz});
	}
	return 1;
}

template <typename T>
bool inside(uintptr_t a, size_t bytes, const T &v)
{
	return a >= (uintptr_t)&v && a + bytes <= (uintptr_t)&v + sizeof v;
}

bool in_program(uintptr_t a, size_t bytes)
{
	if (inside(a, bytes, threadIdx) || inside(a, bytes, blockIdx) ||
	    inside(a, bytes, blockDim) || inside(a, bytes, gridDim))
		return true;
	if (program_segments.empty())
		dl_iterate_phdr(note_segments, NULL);
	for (const segment &s : program_segments)
		if (a >= s.lo && a + bytes <= s.hi)
			return true;
	return false;
}

/* ---- fibers ------------------------------------------------------------- */

/* A fiber's saved context: on x86-64 its stack pointer, where
 * context_switch left the registers the ABI makes the callee save (a
 * switch is a call, and the compiler saves the rest around it), about
 * 20 times faster than ucontext's swapcontext, which also saves the
 * signal mask with a system call; elsewhere a ucontext. */
#if defined(__x86_64__) && !defined(CUDAMODEL_UCONTEXT)
struct context {
	void *sp;
};

extern "C" void cudamodel_switch(void **save_sp, void *to_sp);
extern "C" void cudamodel_fiber_start(void);

/* The System V ABI's callee-saved registers and the SSE and x87 control
 * words.  A new fiber starts in fiber_start with its function in r13 and
 * its argument in r12. */
asm(R"(
	.text
	.p2align 4
	.globl cudamodel_switch
	.hidden cudamodel_switch
	.type cudamodel_switch, @function
cudamodel_switch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $8, %rsp
	stmxcsr (%rsp)
	fnstcw 4(%rsp)
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	ldmxcsr (%rsp)
	fldcw 4(%rsp)
	addq $8, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size cudamodel_switch, .-cudamodel_switch

	.p2align 4
	.globl cudamodel_fiber_start
	.hidden cudamodel_fiber_start
	.type cudamodel_fiber_start, @function
cudamodel_fiber_start:
	movq %r12, %rdi
	callq *%r13
	ud2
	.size cudamodel_fiber_start, .-cudamodel_fiber_start
)");

void context_switch(context *save, context *to)
{
	cudamodel_switch(&save->sp, to->sp);
}

/* A context on the stack lo .. hi that calls fn(arg). */
void context_prepare(context *c, char *lo, char *hi, void (*fn)(void *),
		     void *arg)
{
	(void)lo;
	uintptr_t top = (uintptr_t)hi & ~(uintptr_t)15;
	uint64_t *sp = (uint64_t *)(top - 64);
	uint32_t mxcsr = 0;
	uint16_t fpucw = 0;
	asm volatile("stmxcsr %0" : "=m"(mxcsr));
	asm volatile("fnstcw %0" : "=m"(fpucw));
	sp[0] = mxcsr | (uint64_t)fpucw << 32;
	sp[1] = 0;                           /* r15 */
	sp[2] = 0;                           /* r14 */
	sp[3] = (uint64_t)(uintptr_t)fn;     /* r13 */
	sp[4] = (uint64_t)(uintptr_t)arg;    /* r12 */
	sp[5] = 0;                           /* rbx */
	sp[6] = 0;                           /* rbp */
	sp[7] = (uint64_t)(uintptr_t)cudamodel_fiber_start;
	c->sp = sp;
}
#else
struct context {
	ucontext_t uc;
};

void context_switch(context *save, context *to)
{
	swapcontext(&save->uc, &to->uc);
}

void fiber_entry(void);

/* makecontext passes only ints to the function it starts: a new fiber
 * finds what to run in the model's state instead (fiber_entry: the
 * running thread's fiber_main); fn and arg are always those. */
void context_prepare(context *c, char *lo, char *hi, void (*fn)(void *),
		     void *arg)
{
	(void)fn;
	(void)arg;
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = lo;
	c->uc.uc_stack.ss_size = (size_t)(hi - lo);
	c->uc.uc_link = NULL;
	makecontext(&c->uc, fiber_entry, 0);
}
#endif

const size_t STACK_BYTES = 256 << 10;

enum thread_state { READY, WAITING, EXITED, FAILED };

struct fiber {
	char *stack_lo, *stack_hi;
	context ctx;
	thread_state state;
	const char *file;        /* the barrier it waits at */
	int line;
};

std::vector<fiber> fibers;

bool fibers_reserve(size_t n)
{
	while (fibers.size() < n) {
		size_t bytes = STACK_BYTES + page;
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			       MAP_STACK, -1, 0);
		if (p == MAP_FAILED) {
			say("cannot map a thread's stack: %s", strerror(errno));
			return false;
		}
		mprotect(p, page, PROT_NONE);  /* the guard below */
		fiber f = {};
		f.stack_lo = (char *)p + page;
		f.stack_hi = (char *)p + bytes;
		fibers.push_back(f);
	}
	return true;
}

/* ---- the running launch ------------------------------------------------- */

struct running {
	const launch_info *li;
	uint32_t serial;         /* of the launch, from 1 */
	uint32_t block_serial;   /* of the block, from 1, over all launches */
	unsigned nthreads;       /* a block's */
	unsigned block;          /* linear index of the running block */
	unsigned epoch;          /* barrier intervals passed in the block */
	fiber *thread;           /* the running thread; NULL: host code */
	unsigned thread_index;
	cudaError_t error;       /* the block's, when a thread failed it */
	context sched;
} run;

uint32_t launch_serial, block_serial;

void unflatten(unsigned k, dim3 d, uint3 *v)
{
	v->x = k % d.x;
	v->y = k / d.x % d.y;
	v->z = k / d.x / d.y;
}

/* The kernel's context for a message about the running thread. */
void say_thread(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say_thread(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	say("%s (launched at %s:%d), block (%u,%u,%u), thread (%u,%u,%u): %s",
	    run.li->name, run.li->file, run.li->line, blockIdx.x, blockIdx.y,
	    blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, msg);
}

/* Ends the running thread's part in the launch: the block and the launch
 * fail with err. */
[[noreturn]] void thread_fail(cudaError_t err)
{
	fiber *f = run.thread;
	run.error = err;
	f->state = FAILED;
	context_switch(&f->ctx, &run.sched);
	abort();                 /* never resumed */
}

void fiber_main(void *arg)
{
	fiber *f = (fiber *)arg;
	run.li->run(run.li->closure);
	f->state = EXITED;
	context_switch(&f->ctx, &run.sched);
	abort();
}

#if !defined(__x86_64__) || defined(CUDAMODEL_UCONTEXT)
void fiber_entry(void)
{
	fiber_main(run.thread);
}
#endif

/* ---- thread orders ---------------------------------------------------- */

enum order_kind { FORWARD, REVERSE, SHUFFLE };
order_kind order = FORWARD;
uint64_t order_state;
bool order_read;

void order_init()
{
	if (order_read)
		return;
	order_read = true;
	const char *s = getenv("PLEAT_CUDA_MODEL_ORDER");
	if (!s || !*s || strcmp(s, "forward") == 0)
		return;
	if (strcmp(s, "reverse") == 0) {
		order = REVERSE;
		return;
	}
	if (strncmp(s, "shuffle", 7) == 0 && (s[7] == '\0' || s[7] == ':')) {
		char *end;
		order = SHUFFLE;
		order_state = s[7] ? strtoull(s + 8, &end, 10) : 1;
		if (s[7] && (end == s + 8 || *end)) {
			say("PLEAT_CUDA_MODEL_ORDER: '%s': the seed is not a number", s);
			exit(2);
		}
		return;
	}
	say("PLEAT_CUDA_MODEL_ORDER: '%s' is not forward, reverse or "
	    "shuffle[:SEED]", s);
	exit(2);
}

uint64_t splitmix(void)
{
	uint64_t z = (order_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* 0 .. n-1 in the chosen order. */
void order_fill(std::vector<unsigned> &v, unsigned n)
{
	v.resize(n);
	for (unsigned k = 0; k < n; k++)
		v[k] = order == REVERSE ? n - 1 - k : k;
	if (order == SHUFFLE)
		for (unsigned k = n; k > 1; k--)
			std::swap(v[k - 1], v[splitmix() % k]);
}

/* ---- the race and access checks --------------------------------------- */

bool racecheck = true, racecheck_read;

void racecheck_init()
{
	if (racecheck_read)
		return;
	racecheck_read = true;
	const char *s = getenv("PLEAT_CUDA_MODEL_RACECHECK");
	racecheck = !(s && strcmp(s, "0") == 0);
}

/* Whether access a and one by the running thread (its index `thread` in
 * the numbering of the shadow: the launch's for device memory, the
 * block's for shared memory, whose first thread is `first`) may happen
 * in either order: another thread's, in the same launch (block, for
 * shared memory), with no barrier between (a different block, or the
 * same barrier interval). */
inline bool unordered(const access &a, uint32_t serial, uint32_t thread,
		      uint32_t first)
{
	return a.launch == serial && a.thread != thread &&
	       ((uint32_t)(a.thread - first) >= run.nthreads ||
		a.epoch == (uint16_t)run.epoch);
}

/* al: the allocation of device memory raced on; NULL: shared memory */
[[noreturn]] __attribute__((noinline)) void
race(const access &other, bool write, bool against_write,
     const allocation *al, size_t offset, const void *pc)
{
	uint3 t, b;
	char where[160] = "shared memory";
	unflatten(other.thread % run.nthreads, blockDim, &t);
	if (!al)
		b = blockIdx;
	else {
		unflatten(other.thread / run.nthreads, gridDim, &b);
		snprintf(where, sizeof where, "device memory (%zu bytes from "
			 "%s:%d)", al->bytes, al->file, al->line);
	}
	say_thread("race: %s on %s offset %zu: thread (%u,%u,%u) of block "
		   "(%u,%u,%u) %s it with no barrier between",
		   write ? (against_write ? "write after write" : "write after read")
			 : "read after write",
		   where, offset, t.x, t.y, t.z, b.x, b.y, b.z,
		   against_write ? "wrote" : "read");
	say_where(pc);
	thread_fail(cudaErrorLaunchFailure);
}

/* The race check of an access to `bytes` bytes at offset `offset` of
 * memory whose shadow (a word_shadow a 4-byte word from offset 0) is
 * shadow; serial is the launch (device memory) or the block (shared
 * memory), thread and first as for unordered; al the allocation, NULL
 * for shared memory. */
inline void check_races(word_shadow *shadow, size_t offset, size_t bytes,
			bool write, uint32_t serial, uint32_t thread,
			uint32_t first, const allocation *al, const void *pc)
{
	size_t end = offset + bytes;
	for (size_t w = offset / 4; w * 4 < end; w++) {
		size_t lo = w * 4 > offset ? w * 4 : offset;
		size_t hi = w * 4 + 4 < end ? w * 4 + 4 : end;
		uint8_t mask = hi - lo == 4 ? 0xf :
			(uint8_t)(((1u << (hi - lo)) - 1) << (lo - w * 4));
		word_shadow *sh = &shadow[w];
		access now = {serial, thread, (uint16_t)run.epoch, mask};
		if ((sh->write.bytes & mask) &&
		    unordered(sh->write, serial, thread, first))
			race(sh->write, write, true, al, lo, pc);
		if (!write) {
			if (!unordered(sh->read[0], serial, thread, first))
				sh->read[0] = now;
			else if (!unordered(sh->read[1], serial, thread, first))
				sh->read[1] = now;
			continue;
		}
		for (const access &r : sh->read)
			if ((r.bytes & mask) && unordered(r, serial, thread, first))
				race(r, true, false, al, lo, pc);
		sh->write = now;
	}
}

/* Shared memory's bookkeeping: per word, the block that last wrote it
 * and which of its bytes (for reads of bytes never written), and the
 * race shadow. */
struct written {
	uint32_t block;
	uint8_t bytes;
};
std::vector<written> shared_written;
std::vector<word_shadow> shared_shadow;

[[noreturn]] __attribute__((noinline)) void
shared_fail(const char *what, size_t off, size_t bytes, bool write,
	    const void *pc)
{
	if (!strcmp(what, "past the end"))
		say_thread("%s of %zu bytes at shared memory offset %zu runs past "
			   "the end of shared memory (%zu bytes)",
			   write ? "write" : "read", bytes, off,
			   (size_t)(__stop_cudamodel_shared -
				    __start_cudamodel_shared));
	else
		say_thread("reads shared memory offset %zu, which no thread of "
			   "the block has written", off);
	say_where(pc);
	thread_fail(what[0] == 'p' ? cudaErrorIllegalAddress :
				     cudaErrorLaunchFailure);
}

inline void check_shared(uintptr_t a, size_t bytes, bool write,
			 const void *pc)
{
	uintptr_t lo = (uintptr_t)__start_cudamodel_shared;
	uintptr_t hi = (uintptr_t)__stop_cudamodel_shared;
	size_t off = a - lo, end = off + bytes;
	if (a + bytes > hi)
		shared_fail("past the end", off, bytes, write, pc);
	if (__builtin_expect(shared_shadow.empty(), 0)) {
		shared_written.assign((hi - lo + 3) / 4, written());
		shared_shadow.assign((hi - lo + 3) / 4, word_shadow());
	}
	if (__builtin_expect((off & 3) == 0 && bytes == 4, 1)) {
		/* the common case: one whole word */
		written *wr = &shared_written[off / 4];
		if (write)
			*wr = {run.block_serial, 0xf};
		else if (wr->block != run.block_serial || wr->bytes != 0xf)
			shared_fail("never written", off, bytes, write, pc);
		if (racecheck)
			check_races(shared_shadow.data(), off, bytes, write,
				    run.block_serial, run.thread_index, 0, NULL, pc);
		return;
	}
	for (size_t w = off / 4; w * 4 < end; w++) {
		size_t b0 = w * 4 > off ? w * 4 : off;
		size_t b1 = w * 4 + 4 < end ? w * 4 + 4 : end;
		uint8_t mask = (uint8_t)(((1u << (b1 - b0)) - 1) << (b0 - w * 4));
		written *wr = &shared_written[w];
		if (write) {
			if (wr->block != run.block_serial)
				*wr = {run.block_serial, 0};
			wr->bytes |= mask;
		} else if (wr->block != run.block_serial ||
			   (wr->bytes & mask) != mask) {
			unsigned k = 0;
			while (wr->block == run.block_serial && (wr->bytes >> k & 1))
				k++;
			shared_fail("never written", w * 4 + k, bytes, write, pc);
		}
	}
	if (racecheck)
		check_races(shared_shadow.data(), off, bytes, write,
			    run.block_serial, run.thread_index, 0, NULL, pc);
}

inline void check_device(uintptr_t a, size_t bytes, bool write,
			 const void *pc)
{
	allocation *al = allocation_at(a);
	if (!al || !al->live || bytes > al->base + al->bytes - a) {
		char why[256];
		device_span((const void *)a, bytes, why, sizeof why);
		say_thread("%s of %zu bytes: %s", write ? "write" : "read", bytes,
			   why);
		say_where(pc);
		thread_fail(cudaErrorIllegalAddress);
	}
	if (!racecheck)
		return;
	if (!al->shadow) {
		al->shadow = (word_shadow *)calloc((al->bytes + 3) / 4,
						   sizeof *al->shadow);
		if (!al->shadow) {
			say("out of memory for the race check of %zu bytes", al->bytes);
			abort();
		}
	}
	uint32_t first = run.block * run.nthreads;
	check_races(al->shadow, a - al->base, bytes, write, run.serial,
		    first + run.thread_index, first, al, pc);
}

/* An access by a thread to neither device nor shared memory: its own
 * stack, the launch's parameters or the program's constants, or a
 * failure. */
__attribute__((noinline)) void check_other(uintptr_t a, size_t bytes,
					   bool write, const void *pc)
{
	fiber *f = run.thread;
	if (a >= (uintptr_t)f->stack_lo && a + bytes <= (uintptr_t)f->stack_hi)
		return;
	const launch_info *li = run.li;
	if (a >= (uintptr_t)li->params &&
	    a + bytes <= (uintptr_t)li->params + li->params_bytes && !write)
		return;
	if (!write && in_program(a, bytes))
		return;
	say_thread("%s of %zu bytes at %#lx: not device memory (a host "
		   "pointer?)", write ? "write" : "read", bytes, (unsigned long)a);
	say_where(pc);
	thread_fail(cudaErrorIllegalAddress);
}

[[noreturn]] __attribute__((noinline)) void
host_fail(uintptr_t a, size_t bytes, bool write, const void *pc)
{
	say("host code %s %zu bytes of device memory at %#lx: a device "
	    "pointer dereferenced on the host", write ? "writes" : "reads",
	    bytes, (unsigned long)a);
	say_where(pc);
	abort();
}

inline __attribute__((always_inline)) void
check_access(uintptr_t a, size_t bytes, bool write, const void *pc)
{
	if (__builtin_expect(!run.thread, 0)) {
		/* host code */
		if (in_arena(a))
			host_fail(a, bytes, write, pc);
		return;
	}
	if (a - (uintptr_t)__start_cudamodel_shared <
	    (uintptr_t)(__stop_cudamodel_shared - __start_cudamodel_shared))
		return check_shared(a, bytes, write, pc);
	if (in_arena(a))
		return check_device(a, bytes, write, pc);
	check_other(a, bytes, write, pc);
}

/* ---- running a block ------------------------------------------------------ */

/* Runs block b of the running launch; returns its error. */
cudaError_t run_block(unsigned b, std::vector<unsigned> &order_buf)
{
	const launch_info *li = run.li;
	unsigned n = run.nthreads;
	unflatten(b, li->grid, &blockIdx);
	run.block = b;
	run.block_serial = ++block_serial;
	run.epoch = 0;
	run.error = cudaSuccess;
	if (__start_cudamodel_shared)
		memset(__start_cudamodel_shared, 0xff,
		       (size_t)(__stop_cudamodel_shared - __start_cudamodel_shared));
	for (unsigned t = 0; t < n; t++) {
		fiber *f = &fibers[t];
		f->state = READY;
		context_prepare(&f->ctx, f->stack_lo, f->stack_hi, fiber_main, f);
	}
	for (;;) {
		order_fill(order_buf, n);
		for (unsigned t : order_buf) {
			fiber *f = &fibers[t];
			if (f->state != READY)
				continue;
			unflatten(t, li->block, &threadIdx);
			run.thread = f;
			run.thread_index = t;
			context_switch(&run.sched, &f->ctx);
			run.thread = NULL;
			if (f->state == FAILED)
				return run.error;
		}
		unsigned waiting = 0, exited = 0;
		const fiber *first = NULL;
		for (unsigned t = 0; t < n; t++) {
			const fiber *f = &fibers[t];
			if (f->state == EXITED) {
				exited++;
				continue;
			}
			waiting++;
			if (!first) {
				first = f;
				continue;
			}
			if (f->line != first->line || strcmp(f->file, first->file)) {
				unflatten(t, li->block, &threadIdx);
				say_thread("waits at __syncthreads (%s:%d) while other "
					   "threads of its block wait at another (%s:%d)",
					   f->file, f->line, first->file, first->line);
				return cudaErrorLaunchFailure;
			}
		}
		if (!waiting)
			return cudaSuccess;
		if (exited) {
			say("%s (launched at %s:%d), block (%u,%u,%u): __syncthreads "
			    "(%s:%d) reached by %u of its %u threads; the other %u "
			    "returned", li->name, li->file, li->line, blockIdx.x,
			    blockIdx.y, blockIdx.z, first->file, first->line, waiting,
			    n, exited);
			return cudaErrorLaunchFailure;
		}
		run.epoch++;
		for (unsigned t = 0; t < n; t++)
			fibers[t].state = READY;
	}
}

bool config_ok(const launch_info &li)
{
	const dim3 &g = li.grid, &b = li.block;
	unsigned long threads = (unsigned long)b.x * b.y * b.z;
	if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 0x7fffffffu ||
	    g.y > 65535 || g.z > 65535) {
		say("%s (launched at %s:%d): grid (%u,%u,%u) is not a valid "
		    "grid", li.name, li.file, li.line, g.x, g.y, g.z);
		return false;
	}
	if (threads == 0 || threads > 1024 || b.z > 64) {
		say("%s (launched at %s:%d): block (%u,%u,%u) is not a valid "
		    "block", li.name, li.file, li.line, b.x, b.y, b.z);
		return false;
	}
	return true;
}

}  /* namespace */

/* ---- the calls of cuda_runtime.h ----------------------------------------- */

void barrier(const char *file, int line)
{
	fiber *f = run.thread;
	if (!f) {
		say("__syncthreads (%s:%d) called outside a kernel", file, line);
		abort();
	}
	f->state = WAITING;
	f->file = file;
	f->line = line;
	context_switch(&f->ctx, &run.sched);
}

void atomic_access(const void *p, size_t bytes)
{
	char why[256];
	if (!run.thread) {
		say("an atomic called outside a kernel");
		abort();
	}
	if (!device_span(p, bytes, why, sizeof why)) {
		say_thread("atomic on %zu bytes: %s", bytes, why);
		thread_fail(cudaErrorIllegalAddress);
	}
}

/* kernel<<<...>>>() and then cudaGetLastError(), as pl_launch is under
 * nvcc: the launch's error, which the call consumes unless it is sticky. */
cudaError_t launch(const launch_info &li)
{
	static std::vector<unsigned> block_order, thread_order;
	if (sticky)
		return sticky;
	if (run.li) {
		say("%s launched from inside a kernel", li.name);
		abort();
	}
	if (!config_ok(li))
		return cudaErrorInvalidConfiguration;
	order_init();
	racecheck_init();
	run.li = &li;
	run.serial = ++launch_serial;
	run.nthreads = li.block.x * li.block.y * li.block.z;
	gridDim = li.grid;
	blockDim = li.block;
	if (!arena_init() || !fibers_reserve(run.nthreads)) {
		run.li = NULL;
		return cudaErrorLaunchFailure;
	}
	order_fill(block_order, li.grid.x * li.grid.y * li.grid.z);
	cudaError_t err = cudaSuccess;
	for (unsigned b : block_order)
		if ((err = run_block(b, thread_order)) != cudaSuccess)
			break;
	run.li = NULL;
	if (err != cudaSuccess)
		last = sticky = err;
	return err;
}

bool cub_scratch(void *temp, size_t &bytes, const char *what)
{
	(void)what;
	if (temp)
		return true;
	bytes = 1;
	return false;
}

bool cub_span_bytes(const void *p, size_t n, size_t size, const char *what)
{
	char why[256];
	if (sticky)
		return false;
	if (n && !device_span(p, n * size, why, sizeof why)) {
		say("%s: %s", what, why);
		sticky = cudaErrorIllegalAddress;
		returned(sticky);
		return false;
	}
	return true;
}

cudaError_t malloc_at(void **p, size_t bytes, const char *file, int line)
{
	static bool leak_check;
	if (sticky)
		return returned(sticky);
	if (!p)
		return returned(cudaErrorInvalidValue);
	*p = NULL;
	if (!bytes)
		return cudaSuccess;
	if (!arena_init())
		return returned(cudaErrorMemoryAllocation);
	size_t span = (bytes + page - 1) / page * page;
	if (bytes > DEVICE_BYTES - device_used ||
	    span + page > arena_hi - arena_next) {
		say("cudaMalloc (%s:%d): %zu bytes do not fit (%zu of %zu in use)",
		    file, line, bytes, device_used, DEVICE_BYTES);
		return returned(cudaErrorMemoryAllocation);
	}
	void *at = (void *)arena_next;
	if (mprotect(at, span, PROT_READ | PROT_WRITE)) {
		say("cudaMalloc (%s:%d): %s", file, line, strerror(errno));
		return returned(cudaErrorMemoryAllocation);
	}
	memset(at, 0xff, bytes);
	arena_next += span + page;  /* and a page nobody may touch */
	device_used += bytes;
	allocation al = {(uintptr_t)at, bytes, file, NULL, line, 0, true, NULL};
	allocations.push_back(al);
	if (!leak_check) {
		on_exit(leaks_at_exit, NULL);
		leak_check = true;
	}
	*p = at;
	return cudaSuccess;
}

cudaError_t free_at(void *p, const char *file, int line)
{
	if (!p)
		return sticky ? returned(sticky) : cudaSuccess;
	allocation *al = in_arena((uintptr_t)p) ? allocation_at((uintptr_t)p) :
						  NULL;
	if (!al || al->base != (uintptr_t)p) {
		say("cudaFree (%s:%d): %p is not an address cudaMalloc returned",
		    file, line, p);
		return returned(cudaErrorInvalidValue);
	}
	if (!al->live) {
		say("cudaFree (%s:%d): %p was freed already, at %s:%d", file,
		    line, p, al->freed_file, al->freed_line);
		return returned(cudaErrorInvalidValue);
	}
	al->live = false;
	al->freed_file = file;
	al->freed_line = line;
	device_used -= al->bytes;
	size_t span = (al->bytes + page - 1) / page * page;
	madvise(p, span, MADV_DONTNEED);
	mprotect(p, span, PROT_NONE);
	free(al->shadow);
	al->shadow = NULL;
	return sticky ? returned(sticky) : cudaSuccess;
}

/* The side of a copy that must be device memory: all of it in one live
 * allocation; the side that must be host memory: none of it device. */
static bool copy_side(const void *p, size_t bytes, bool device,
		      const char *call, const char *side, const char *file,
		      int line)
{
	char why[256];
	if (device && !device_span(p, bytes, why, sizeof why)) {
		say("%s (%s:%d): the %s: %s", call, file, line, side, why);
		return false;
	}
	if (!device && in_arena((uintptr_t)p)) {
		say("%s (%s:%d): the %s %p is device memory where the call says "
		    "host memory", call, file, line, side, p);
		return false;
	}
	return true;
}

cudaError_t memcpy_at(void *dst, const void *src, size_t bytes,
		      cudaMemcpyKind kind, const char *file, int line)
{
	if (sticky)
		return returned(sticky);
	if (kind == cudaMemcpyDefault)
		kind = (cudaMemcpyKind)((in_arena((uintptr_t)src) ? 2 : 0) |
					(in_arena((uintptr_t)dst) ? 1 : 0));
	if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDeviceToDevice)
		return returned(cudaErrorInvalidMemcpyDirection);
	if (!bytes)
		return cudaSuccess;
	bool src_dev = kind == cudaMemcpyDeviceToHost ||
		       kind == cudaMemcpyDeviceToDevice;
	bool dst_dev = kind == cudaMemcpyHostToDevice ||
		       kind == cudaMemcpyDeviceToDevice;
	if (!copy_side(src, bytes, src_dev, "cudaMemcpy", "source", file, line) ||
	    !copy_side(dst, bytes, dst_dev, "cudaMemcpy", "destination", file,
		       line))
		return returned(cudaErrorInvalidValue);
	memmove(dst, src, bytes);
	return cudaSuccess;
}

cudaError_t memset_at(void *p, int value, size_t bytes, const char *file,
		      int line)
{
	if (sticky)
		return returned(sticky);
	if (!bytes)
		return cudaSuccess;
	if (!copy_side(p, bytes, true, "cudaMemset", "destination", file, line))
		return returned(cudaErrorInvalidValue);
	memset(p, value, bytes);
	return cudaSuccess;
}

}  /* namespace cudamodel */

using namespace cudamodel;

cudaError_t cudaGetDeviceCount(int *count)
{
	if (!count)
		return returned(cudaErrorInvalidValue);
	*count = 1;
	return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int dev)
{
	if (!prop)
		return returned(cudaErrorInvalidValue);
	if (dev != 0)
		return returned(cudaErrorInvalidDevice);
	memset(prop, 0, sizeof *prop);
	snprintf(prop->name, sizeof prop->name,
		 "CUDA execution model on the CPU");
	prop->major = 9;
	prop->minor = 0;
	prop->totalGlobalMem = DEVICE_BYTES;
	prop->sharedMemPerBlock = 48 << 10;
	prop->multiProcessorCount = 1;
	prop->maxThreadsPerBlock = 1024;
	prop->warpSize = 32;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int dev)
{
	if (sticky)
		return returned(sticky);
	return dev == 0 ? cudaSuccess : returned(cudaErrorInvalidDevice);
}

cudaError_t cudaGetLastError(void)
{
	cudaError_t err = last;
	last = sticky;
	return err;
}

cudaError_t cudaPeekAtLastError(void)
{
	return last;
}

cudaError_t cudaDeviceSynchronize(void)
{
	return sticky ? returned(sticky) : cudaSuccess;
}

const char *cudaGetErrorName(cudaError_t err)
{
	switch (err) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
	case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
	case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
	case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
	case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
	case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
	case cudaErrorNoDevice: return "cudaErrorNoDevice";
	case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
	case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
	case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
	}
	return "cudaErrorUnknown";
}

/* The runtime's own wording. */
const char *cudaGetErrorString(cudaError_t err)
{
	switch (err) {
	case cudaSuccess: return "no error";
	case cudaErrorInvalidValue: return "invalid argument";
	case cudaErrorMemoryAllocation: return "out of memory";
	case cudaErrorInvalidConfiguration: return "invalid configuration argument";
	case cudaErrorInvalidDevicePointer: return "invalid device pointer";
	case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
	case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
	case cudaErrorNoDevice: return "no CUDA-capable device is detected";
	case cudaErrorInvalidDevice: return "invalid device ordinal";
	case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
	case cudaErrorLaunchFailure: return "unspecified launch failure";
	}
	return "unknown error";
}

/* ---- the instrumentation's entry points -------------------------------------
 *
 * The .cu files are compiled with -fsanitize=thread, which calls these
 * before every load and store (and which, unlike the address sanitizer's
 * instrumentation, tells reads from writes and checks each access, even
 * one to an address the code read just before).  They are ours: no
 * sanitizer runtime is linked. */

#define CHECKS(n)                                                          \
	extern "C" void __tsan_read##n(uintptr_t a)                        \
	{                                                                   \
		check_access(a, n, false, __builtin_return_address(0));     \
	}                                                                   \
	extern "C" void __tsan_write##n(uintptr_t a)                       \
	{                                                                   \
		check_access(a, n, true, __builtin_return_address(0));      \
	}                                                                   \
	extern "C" void __tsan_unaligned_read##n(uintptr_t a)              \
	{                                                                   \
		check_access(a, n, false, __builtin_return_address(0));     \
	}                                                                   \
	extern "C" void __tsan_unaligned_write##n(uintptr_t a)             \
	{                                                                   \
		check_access(a, n, true, __builtin_return_address(0));      \
	}
CHECKS(1)
CHECKS(2)
CHECKS(4)
CHECKS(8)
CHECKS(16)

extern "C" void __tsan_read_range(uintptr_t a, size_t n)
{
	check_access(a, n, false, __builtin_return_address(0));
}

extern "C" void __tsan_write_range(uintptr_t a, size_t n)
{
	check_access(a, n, true, __builtin_return_address(0));
}

/* called by each instrumented file's constructor: nothing to set up */
extern "C" void __tsan_init(void) {}
