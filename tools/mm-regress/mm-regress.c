/* mm-regress.c: the mm regression runner: options, the case table, KTAP output, one child per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mm-regress.h"
#include "../tcg-cache/marker.h"

static const struct mr_case cases[] = {
	{ "mremap_pte", "move PTE-sized, page-aligned regions and check the pattern",
	  case_mremap_pte, 0 },
	{ "mremap_pmd", "move 2 MiB-aligned, 2 MiB-sized regions (PMD-level move)",
	  case_mremap_pmd, 0 },
	{ "mremap_pud", "move a 1 GiB-aligned, 1 GiB region (PUD-level move)",
	  case_mremap_pud, 0 },
	{ "mremap_unaligned", "moves whose source or destination is not PMD-aligned",
	  case_mremap_unaligned, 0 },
	{ "mremap_pud_time", "time a 1 GiB move, PUD-aligned against only PMD-aligned",
	  case_mremap_pud_time, MR_MEASURES_ONLY },
	{ "mremap_pte_loop", "mmap/memset/mremap-fixed/munmap loop of the PTE batching series",
	  case_mremap_pte_loop, MR_MEASURES_ONLY },
	{ "realloc_rate", "realloc() calls per second growing a heap, as stress-ng bigheap",
	  case_realloc_rate, MR_MEASURES_ONLY },
	{ "bigheap", "stress-ng bigheap's realloc calls per second, the calls alone timed, --instances workers (only with --case)",
	  case_bigheap, MR_MEASURES_ONLY | MR_OPT_IN },
	{ "pte_batch_mprotect", "THP region partly read-only, moved: read-only part still faults",
	  case_pte_batch_mprotect, 0 },
	{ "pte_batch_cow", "THP region shared with a child by fork(), moved and written: no leak",
	  case_pte_batch_cow, 0 },
	{ "pte_batch_wrbit", "one VMA, PTEs of a THP with mixed write bits, moved: no write through",
	  case_pte_batch_wrbit, 0 },
	{ "madvise_dontneed", "MADV_DONTNEED over a region, 4 KiB per madvise() call",
	  case_madvise_dontneed, 0 },
	{ "process_madvise_dontneed", "MADV_DONTNEED with process_madvise() (MADV_COLD where refused), batches of 1 to 1024",
	  case_process_madvise_dontneed, 0 },
	{ "cache_colour", "move pages between cache colours and look for stale data",
	  case_cache_colour, 0 },
};
#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

struct options {
	int list;
	int quick;
	int seed_set;
	uint64_t seed;
	unsigned repeat;
	unsigned timeout;
	int timeout_set;
	uint64_t clock_floor_ns;	/* --clock-resolution */
	char mthp[16];			/* --mthp: an mTHP size to turn on as init, or "" */
	size_t heap;			/* --heap: realloc_rate's and bigheap's heap limit in bytes, 0 default */
	unsigned instances;		/* --instances: bigheap's worker processes */
	unsigned char selected[NR_CASES];
	int any_selected;
};

static int is_init;
/* Probed before the first case; each case's child inherits it. */
static struct mr_clock run_clock;

void mr_region_start(void)
{
	TCG_CACHE_MARK(TCG_CACHE_MARK_START);
}

void mr_region_end(struct mr_ctx *ctx, double iterations, const char *per)
{
	TCG_CACHE_MARK(TCG_CACHE_MARK_END);
	mr_diag("region: %s %.0f %s", ctx->name, iterations, per);
}

void mr_region_pause(void)
{
	TCG_CACHE_MARK(TCG_CACHE_MARK_PAUSE);
}

void mr_region_resume(void)
{
	TCG_CACHE_MARK(TCG_CACHE_MARK_RESUME);
}

void mr_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void set_reason(struct mr_ctx *ctx, const char *fmt, va_list ap)
{
	char *p;

	vsnprintf(ctx->reason, sizeof(ctx->reason), fmt, ap);
	for (p = ctx->reason; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

enum mr_status mr_skip(struct mr_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_reason(ctx, fmt, ap);
	va_end(ap);
	return MR_SKIP;
}

enum mr_status mr_fail(struct mr_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_reason(ctx, fmt, ap);
	va_end(ap);
	mr_diag("%s: %s", ctx->name, ctx->reason);
	return MR_FAIL;
}

/* Withhold a metric the clock cannot resolve, and remember why for the case's verdict. */
static void metric_skip(struct mr_ctx *ctx, const char *name, const struct mr_samples *s)
{
	char why[sizeof(ctx->metric_skip)];

	snprintf(why, sizeof(why),
		 "shortest timed interval %llu ns is under %d x the clock's resolution (%llu ns, clocksource %s)",
		 (unsigned long long)s->shortest_ns, MR_MIN_TICKS,
		 (unsigned long long)ctx->clock->resolution_ns, ctx->clock->source);
	printf("# metric-skip: %s %s %s\n", ctx->name, name, why);
	if (!ctx->nr_metric_skips++)
		snprintf(ctx->metric_skip, sizeof(ctx->metric_skip), "%s", why);
}

void mr_metric(struct mr_ctx *ctx, const char *name, const struct mr_samples *s,
	       const char *unit, int higher_is_better)
{
	const char *dir = higher_is_better ? "higher_is_better" : "lower_is_better";
	double mean = 0, var = 0;
	unsigned i, n = s->n;

	if (!n)
		return;
	if (s->shortest_ns != UINT64_MAX && !mr_resolved(ctx, s->shortest_ns)) {
		metric_skip(ctx, name, s);
		return;
	}
	ctx->nr_metrics++;
	for (i = 0; i < n; i++)
		mean += s->v[i];
	mean /= n;
	if (n == 1) {
		printf("# metric: %s %s %.3f %s %s\n", ctx->name, name, mean, unit, dir);
		return;
	}
	for (i = 0; i < n; i++) {
		printf("# sample: %s %s %u/%u %.3f %s\n", ctx->name, name, i + 1, n, s->v[i],
		       unit);
		var += (s->v[i] - mean) * (s->v[i] - mean);
	}
	var /= n - 1;
	printf("# metric: %s %s %.3f %s %s n=%u stddev=%.3f\n", ctx->name, name, mean, unit,
	       dir, n, sqrt(var));
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: mm-regress [--list] [--case NAME[,NAME...]]... [--seed N] [--repeat N]\n"
		   "                  [--quick] [--timeout SEC] [--args-from FILE]\n"
		   "                  [--clock-resolution NS] [--mthp SIZE] [--heap SIZE]\n"
		   "                  [--instances N]\n\n"
		   "    --list             print the case names and exit\n"
		   "    --case NAME        run only these cases (repeatable, or comma-separated)\n"
		   "    --seed N           seed of the data patterns (default: from the clock)\n"
		   "    --repeat N         samples per measurement (mean and stddev printed)\n"
		   "    --quick            small sizes, few iterations (seconds under emulation)\n"
		   "    --timeout SEC      kill a case after SEC seconds (0: never)\n"
		   "    --args-from FILE   take arguments from a kernel command line in FILE\n"
		   "                       (its mm_regress= parameter), as when running as init\n"
		   "    --clock-resolution NS\n"
		   "                       diagnostic aid: pretend the clock is at least NS ns\n"
		   "                       coarse; a timing under 100 x its resolution is never\n"
		   "                       reported as a number (a '# metric-skip:' line instead)\n"
		   "    --mthp SIZE        as init, turn on the mTHP size SIZE (64kB: one arm64\n"
		   "                       contpte block) for every anonymous fault, through\n"
		   "                       /sys/kernel/mm/transparent_hugepage/hugepages-SIZE;\n"
		   "                       without it the kernel's own setting stays\n"
		   "    --heap SIZE        realloc_rate grows its heap up to SIZE (K, M or G;\n"
		   "                       default 8M with --quick, 64M without) before it\n"
		   "                       starts over; bigheap each worker's (default 64M)\n"
		   "    --instances N      bigheap runs N worker processes (1 to %u, default 1),\n"
		   "                       one realloc() each in turn, as stress-ng --bigheap N\n"
		   "                       runs N instances on one CPU\n"
		   "    -h, --help         show this help\n\n"
		   "Prints KTAP on standard output. Exit status: 0 every case passed or was\n"
		   "skipped, 1 a case failed, 2 usage error. As PID 1 (an initramfs /init) it\n"
		   "reads mm_regress=ARG,ARG... from the kernel command line and reboots at the end.\n\n"
		   "cases (those marked 'only with --case' run only when named):\n", MR_MAX_INSTANCES);
	for (i = 0; i < NR_CASES; i++)
		fprintf(f, "    %-26s %s\n", cases[i].name, cases[i].help);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mm-regress: %s\n(see 'mm-regress --help')\n", msg);
	if (is_init) {
		/* A booted guest has only its console: make the reason KTAP there. */
		printf("KTAP version 1\n1..0\nBail out! %s\n", msg);
	}
	return -1;
}

static int select_cases(struct options *o, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;
	size_t i;

	if (!copy)
		return usage_error("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_CASES; i++)
			if (!strcmp(tok, cases[i].name))
				break;
		if (i == NR_CASES) {
			ret = usage_error("unknown case '%s' (see --list)", tok);
			break;
		}
		o->selected[i] = 1;
		o->any_selected = 1;
	}
	free(copy);
	return ret;
}

static int parse_number(const char *opt, const char *val, unsigned long long max,
			unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(val, &end, 0);
	if (!*val || *end || errno || *val == '-' || *out > max)
		return usage_error("option '%s' expects a number up to %llu, not '%s'", opt, max,
				   val);
	return 0;
}

/*
 * --heap: a whole number of 64 KiB growth steps, from 1M to 64G, with an
 * optional K, M or G suffix.
 */
static int parse_heap(const char *val, size_t *out)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(val, &end, 10);
	if (*end == 'K' || *end == 'M' || *end == 'G')
		n <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 30, end++;
	if (!*val || *val == '-' || errno || *end || n < MiB || n > 64ULL * GiB || n % (64 * KiB))
		return usage_error("option '--heap' takes a size from 1M to 64G in 64K steps "
				   "(as 256M), not '%s'", val);
	*out = n;
	return 0;
}

static int read_args_file(const char *path, char ***out, int *nr)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return usage_error("cannot read '%s': %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!strstr(buf, "mm_regress="))
		return usage_error("'%s' has no mm_regress= parameter", path);
	return mr_args_from_cmdline(buf, out, nr) < 0 ? usage_error("out of memory") : 0;
}

/* Options may repeat and take "--opt VALUE" or "--opt=VALUE". */
static int parse_args(struct options *o, int argc, char **argv, int depth)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		char name[32];
		unsigned long long n;
		size_t len;

		if (strncmp(arg, "--", 2) && strcmp(arg, "-h"))
			return usage_error("unexpected argument '%s'", arg);
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		if (len >= sizeof(name))
			return usage_error("unknown option '%s'", arg);
		memcpy(name, arg, len);
		name[len] = '\0';
		if (eq)
			val = eq + 1;

		if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
			usage(stdout);
			return 1;
		}
		if (!strcmp(name, "--list") || !strcmp(name, "--quick")) {
			if (val)
				return usage_error("option '%s' takes no value", name);
			if (name[2] == 'l')
				o->list = 1;
			else
				o->quick = 1;
			continue;
		}
		if (strcmp(name, "--case") && strcmp(name, "--seed") && strcmp(name, "--repeat") &&
		    strcmp(name, "--timeout") && strcmp(name, "--args-from") &&
		    strcmp(name, "--clock-resolution") && strcmp(name, "--mthp") &&
		    strcmp(name, "--heap") && strcmp(name, "--instances"))
			return usage_error("unknown option '%s'", arg);
		if (!val) {
			if (i + 1 >= argc)
				return usage_error("option '%s' needs a value", name);
			val = argv[++i];
		}
		if (!strcmp(name, "--case")) {
			if (select_cases(o, val))
				return -1;
		} else if (!strcmp(name, "--seed")) {
			if (parse_number(name, val, UINT64_MAX, &n))
				return -1;
			o->seed = n;
			o->seed_set = 1;
		} else if (!strcmp(name, "--repeat")) {
			if (parse_number(name, val, 1000, &n))
				return -1;
			if (!n)
				return usage_error("option '--repeat' must be at least 1");
			o->repeat = n;
		} else if (!strcmp(name, "--timeout")) {
			if (parse_number(name, val, 86400, &n))
				return -1;
			o->timeout = n;
			o->timeout_set = 1;
		} else if (!strcmp(name, "--clock-resolution")) {
			/* The KTAP reader takes resolutions under 1e12 ns. */
			if (parse_number(name, val, 100000000000ULL, &n))
				return -1;
			o->clock_floor_ns = n;
		} else if (!strcmp(name, "--heap")) {
			if (parse_heap(val, &o->heap))
				return -1;
		} else if (!strcmp(name, "--instances")) {
			/* Each worker holds a heap and two pipe ends: a bound keeps a typo from forking thousands. */
			if (parse_number(name, val, MR_MAX_INSTANCES, &n))
				return -1;
			if (!n)
				return usage_error("option '--instances' must be at least 1");
			o->instances = n;
		} else if (!strcmp(name, "--mthp")) {
			size_t k, vlen = strlen(val);

			/* a sysfs directory name: digits then kB, as hugepages-64kB */
			for (k = 0; k < vlen && val[k] >= '0' && val[k] <= '9'; k++)
				;
			if (!k || k + 2 != vlen || strcmp(val + k, "kB") || vlen >= sizeof(o->mthp))
				return usage_error("option '--mthp' takes a size such as 64kB, not '%s'", val);
			memcpy(o->mthp, val, vlen + 1);
		} else {
			char **more = NULL;
			int nr = 0, ret, k;

			if (depth)
				return usage_error("'--args-from' cannot be nested");
			if (read_args_file(val, &more, &nr))
				return -1;
			ret = parse_args(o, nr, more, depth + 1);
			for (k = 0; k < nr; k++)
				free(more[k]);
			free(more);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static void print_header(const struct options *o, unsigned planned)
{
	struct utsname u;
	char thp[160];
	long avail = mr_meminfo_kb("MemAvailable");

	printf("KTAP version 1\n1..%u\n", planned);
	mr_diag("mm-regress %s: %s run, %u sample(s) per measurement%s", MR_VERSION,
		o->quick ? "quick" : "full", o->repeat, is_init ? ", as init" : "");
	mr_diag("seed: %llu", (unsigned long long)o->seed);
	if (uname(&u) == 0) {
		mr_diag("kernel: %s %s %s", u.sysname, u.release, u.machine);
		/* mkseries checks it against the branch's arch: no silent x86 in place of arm64. */
		mr_diag("machine: %s", u.machine);
	}
	if (!mr_thp_usable(thp, sizeof(thp)))
		mr_diag("%s", thp);
	/*
	 * As init, in a guest of its own, when the kit asks (--mthp 64kB on
	 * arm64: one contpte block with 4 KiB pages): that mTHP size for
	 * every anonymous fault, so mremap's PTE batching has large folios
	 * mapped with the contiguous bit to batch. Otherwise the kernel's own
	 * setting stays (on x86 the one 0b5be138ce00's regression was
	 * reported with), and never on the host, whose settings are not ours.
	 */
	if (is_init)
		mr_diag("address layout: %s", mr_layout_fixed() ?
			"fixed (ADDR_NO_RANDOMIZE: every boot maps alike, so timings repeat)" :
			"randomized");
	if (is_init && o->mthp[0])
		mr_mthp_enable(o->mthp, "always");
	else if (o->mthp[0])
		mr_diag("mTHP %s: left as it is (--mthp acts only as init)", o->mthp);
	mr_diag("page size %ld, MemAvailable %ld MiB", sysconf(_SC_PAGESIZE),
		avail < 0 ? -1 : avail / 1024);
	mr_clock_init(&run_clock, o->clock_floor_ns);
}

/*
 * A case that only measures has nothing to show when the clock resolved
 * none of its metrics: it is skipped with the first one's reason. A
 * failure stays a failure.
 */
static enum mr_status settle(const struct mr_case *c, struct mr_ctx *ctx, enum mr_status st)
{
	if (st != MR_PASS || !(c->flags & MR_MEASURES_ONLY) || ctx->nr_metrics ||
	    !ctx->nr_metric_skips)
		return st;
	snprintf(ctx->reason, sizeof(ctx->reason), "%s", ctx->metric_skip);
	return MR_SKIP;
}

static const char *status_word(enum mr_status s)
{
	return s == MR_FAIL ? "not ok" : "ok";
}

/*
 * Run one case in a child, so a crash or a hang becomes "not ok" instead
 * of the end of the run (and, as PID 1, of the kernel). The child sends
 * its status byte and reason through a pipe.
 */
static enum mr_status run_case(const struct options *o, size_t idx, char *reason, size_t rlen)
{
	struct mr_ctx ctx;
	enum mr_status st;
	int fds[2], wstatus;
	char buf[1 + sizeof(ctx.reason)];
	size_t got = 0;
	ssize_t n;
	pid_t pid;
	const char *p;

	memset(&ctx, 0, sizeof(ctx));
	ctx.name = cases[idx].name;
	ctx.seed = o->seed;
	ctx.quick = o->quick;
	ctx.repeat = o->repeat;
	ctx.heap = o->heap;
	ctx.instances = o->instances;
	ctx.page = sysconf(_SC_PAGESIZE);
	ctx.clock = &run_clock;
	ctx.case_seed = o->seed;
	for (p = ctx.name; *p; p++)
		ctx.case_seed = mr_mix(ctx.case_seed ^ (unsigned char)*p);

	fflush(stdout);
	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		mr_diag("%s: cannot fork (%s); running it in-process", ctx.name, strerror(errno));
		st = settle(&cases[idx], &ctx, cases[idx].run(&ctx));
		snprintf(reason, rlen, "%s", ctx.reason);
		return st;
	}
	if (!pid) {
		close(fds[0]);
		if (o->timeout)
			alarm(o->timeout);
		st = settle(&cases[idx], &ctx, cases[idx].run(&ctx));
		fflush(stdout);
		buf[0] = (char)st;
		n = strlen(ctx.reason);
		memcpy(buf + 1, ctx.reason, n);
		if (write(fds[1], buf, n + 1) < 0)
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	while (got < sizeof(buf) - 1 &&
	       ((n = read(fds[0], buf + got, sizeof(buf) - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			got += n;
	close(fds[0]);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	buf[got] = '\0';
	if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);

		if (sig == SIGALRM)
			snprintf(reason, rlen, "timed out after %u s", o->timeout);
		else
			snprintf(reason, rlen, "killed by signal %d (%s)", sig, strsignal(sig));
		mr_diag("%s: %s", ctx.name, reason);
		return MR_FAIL;
	}
	if (!got || (unsigned char)buf[0] > MR_SKIP || WEXITSTATUS(wstatus)) {
		snprintf(reason, rlen, "ended without a result (exit status %d)",
			 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
		mr_diag("%s: %s", ctx.name, reason);
		return MR_FAIL;
	}
	snprintf(reason, rlen, "%s", buf + 1);
	return (enum mr_status)buf[0];
}

/* Whether the run takes case i: the cases --case names, else all but the opt-in ones. */
static int runs(const struct options *o, size_t i)
{
	if (o->any_selected)
		return o->selected[i];
	return !(cases[i].flags & MR_OPT_IN);
}

static int run(const struct options *o)
{
	unsigned planned = 0, num = 0, pass = 0, fail = 0, skip = 0;
	double t0 = mr_now();
	size_t i;

	for (i = 0; i < NR_CASES; i++)
		planned += runs(o, i);
	print_header(o, planned);
	for (i = 0; i < NR_CASES; i++) {
		char reason[256] = "";
		enum mr_status st;
		double t;

		if (!runs(o, i))
			continue;
		mr_diag("%s: %s", cases[i].name, cases[i].help);
		t = mr_now();
		st = run_case(o, i, reason, sizeof(reason));
		mr_diag("%s: %.3f s", cases[i].name, mr_now() - t);
		num++;
		if (st == MR_SKIP) {
			skip++;
			printf("ok %u %s # SKIP %s\n", num, cases[i].name,
			       *reason ? reason : "no reason given");
			continue;
		}
		st == MR_PASS ? pass++ : fail++;
		printf("%s %u %s\n", status_word(st), num, cases[i].name);
	}
	mr_diag("Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0", pass, fail, skip);
	mr_diag("mm-regress: %.3f s in all; rerun with --seed %llu", mr_now() - t0,
		(unsigned long long)o->seed);
	return fail ? 1 : 0;
}

/* The done marker ends every run, and everything init prints: it must be the last line. */
static void finish(int status, int ran) __attribute__((noreturn));
static void finish(int status, int ran)
{
	if (is_init)
		mr_diag("init: exit status %d, rebooting", status);
	if (ran || is_init)
		puts(MR_DONE_MARKER);
	if (is_init)
		mr_init_finish();
	fflush(stdout);
	exit(status);
}

int main(int argc, char **argv)
{
	struct options o;
	char **args = argv + 1;
	int nr = argc - 1, ret;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&o, 0, sizeof(o));
	o.repeat = 1;
	o.instances = 1;
	is_init = getpid() == 1;
	if (is_init) {
		mr_init_fixed_layout(argv);
		mr_init_setup();
		args = NULL;
		nr = 0;
		if (mr_init_args(argc, argv, &args, &nr) < 0)
			finish(2, 0);
	}
	ret = parse_args(&o, nr, args, 0);
	if (ret)
		finish(ret > 0 ? 0 : 2, 0);
	if (o.list) {
		for (i = 0; i < NR_CASES; i++)
			puts(cases[i].name);
		finish(0, 0);
	}
	if (!o.seed_set)
		o.seed = (uint64_t)(mr_mix((uint64_t)(mr_now() * 1e9) ^ getpid()) % 1000000000);
	if (!o.timeout_set)
		o.timeout = o.quick ? 300 : 1800;
	finish(run(&o), 1);
}
