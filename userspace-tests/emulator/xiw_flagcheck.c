// SPDX-License-Identifier: GPL-2.0
/*
 * Does the emulator save the right RFLAGS when an instruction that writes
 * memory faults? The test VMs run under QEMU's TCG, and every interrupted
 * context, the kernel's included, resumes with the flags saved at its
 * fault. An x86 CPU saves the flags from before the faulting instruction,
 * which then restarts. QEMU 7.2 (Debian 12's) saves wrong ones after a
 * faulting RCL or RCR, and after a ROL garbage outside the arithmetic
 * flags: TF, DF, IOPL (Documentation/testing.rst, "The emulator").
 *
 * Each probe sets the flags with POPF, runs a flag-setting instruction X on
 * registers, then an instruction F that writes a read-only page. The
 * SIGSEGV handler records the flags the kernel found saved and makes the
 * page writable, so F restarts and completes. The same X followed by PUSHF
 * gives the flags that should have been saved. A stray TF arrives as
 * SIGTRAP and counts as a failure. Prints one line per wrong probe (at
 * most 20) and a summary; exits 0 only if every probe was right.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#define RF 0x10000UL	/* resume flag: set in fault frames, not compared */
#define ARITH 0x8d5UL	/* OF SF ZF AF PF CF */

static volatile unsigned long saved;
static volatile int traps;
static char *page;

static void on_segv(int sig __attribute__((unused)),
		    siginfo_t *si __attribute__((unused)), void *ctx)
{
	saved = ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL];
	mprotect(page, 4096, PROT_READ | PROT_WRITE);
}

static void on_trap(int sig __attribute__((unused)),
		    siginfo_t *si __attribute__((unused)), void *ctx)
{
	traps++;
	((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] &= ~0x100LL;
}

/* PUSH and PUSHF must not land on the compiler's red zone. */
#define SKIP_RED_ZONE "lea -128(%%rsp), %%rsp\n\t"
#define BACK "lea 128(%%rsp), %%rsp"

/* ref_X: the flags after X. probe_X_F: the flags saved when F faulted. */
#define REF(x, insn)							\
	static unsigned long ref_##x(unsigned long fl, long v)		\
	{								\
		unsigned long r;					\
		long b = 7;						\
		asm volatile(SKIP_RED_ZONE				\
			     "push %[fl]\n\tpopf\n\t" insn "\n\t"		\
			     "pushf\n\tpop %[r]\n\tcld\n\t" BACK		\
			     : [r] "=&r"(r), "+b"(b), "+S"(v)		\
			     : [fl] "r"(fl) : "cc");			\
		return r;						\
	}
#define PROBE(x, xi, f, fi)						\
	static unsigned long probe_##x##_##f(unsigned long fl, long v)	\
	{								\
		long *p = (long *)(page + 64), b = 7;			\
		asm volatile(SKIP_RED_ZONE				\
			     "push %[fl]\n\tpopf\n\t" xi "\n\t"		\
			     fi "\n\tcld\n\t" BACK				\
			     : "+b"(b), "+S"(v)				\
			     : [fl] "r"(fl), [p] "r"(p) : "cc", "memory"); \
		return saved;						\
	}

#define X_POPF	""
#define X_ADD	"addq %%rsi, %%rbx"
#define X_SUB	"subq %%rsi, %%rbx"
#define X_ROL	"rolq $5, %%rsi"
#define F_ADD	"addq %%rsi, (%[p])"
#define F_RCL	"rclq $1, (%[p])"
#define F_RCR	"rcrq $1, (%[p])"

REF(popf, X_POPF)
REF(add, X_ADD)
REF(sub, X_SUB)
REF(rol, X_ROL)
PROBE(popf, X_POPF, add, F_ADD)
PROBE(popf, X_POPF, rcl, F_RCL)
PROBE(add, X_ADD, rcl, F_RCL)
PROBE(sub, X_SUB, rcr, F_RCR)
PROBE(rol, X_ROL, add, F_ADD)
PROBE(rol, X_ROL, rcl, F_RCL)
PROBE(rol, X_ROL, rcr, F_RCR)

static const struct {
	const char *name;
	unsigned long (*ref)(unsigned long, long);
	unsigned long (*probe)(unsigned long, long);
} probes[] = {
	{ "rol, rcl memory", ref_rol, probe_rol_rcl },
	{ "rol, rcr memory", ref_rol, probe_rol_rcr },
	{ "rol, add to memory", ref_rol, probe_rol_add },
	{ "popf, add to memory", ref_popf, probe_popf_add },
	{ "popf, rcl memory", ref_popf, probe_popf_rcl },
	{ "add, rcl memory", ref_add, probe_add_rcl },
	{ "sub, rcr memory", ref_sub, probe_sub_rcr },
};

int main(void)
{
	/* IF and bit 1 always; then all arithmetic flags; OF; DF. */
	static const unsigned long flags[] = { 0x202, 0x2d7, 0xad7, 0x6d7 };
	static const long values[] = { 5, -1, 0x4000000000000000L };
	struct sigaction segv = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	struct sigaction trap = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };
	int bad = 0, alien = 0, n = 0;

	sigaction(SIGSEGV, &segv, NULL);
	sigaction(SIGTRAP, &trap, NULL);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 2;
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		for (size_t j = 0; j < sizeof(flags) / sizeof(flags[0]); j++)
			for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
				unsigned long want, got;
				int t = traps;

				want = probes[i].ref(flags[j], values[k]);
				memset(page, 0, 4096);
				mprotect(page, 4096, PROT_READ);
				saved = 0;
				got = probes[i].probe(flags[j], values[k]);
				n++;
				if ((got & ~RF) == (want & ~RF) && traps == t)
					continue;
				if (((got ^ want) & ~(RF | ARITH)) || traps != t)
					alien++;
				if (bad++ < 20)
					printf("%s, flags %#lx, value %#lx: saved %#lx, want %#lx%s\n",
					       probes[i].name, flags[j], values[k],
					       got, want, traps != t ? ", then SIGTRAP" : "");
			}
	printf("flagcheck: %d of %d faulting writes saved wrong flags, %d of them beyond the arithmetic flags\n",
	       bad, n, alien);
	return bad != 0;
}
