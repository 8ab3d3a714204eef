/* builtin/doctor.c: `mkseries doctor`: every check run, build and test make before their long steps. */
#include <string.h>

#include "builtin/builtin.h"
#include "doctor/doctor.h"
#include "kit/select.h"
#include "lib/options.h"
#include "lib/util.h"
#include "run/cells.h"

/* What no command needs but some use: said, never a failure. */
static void check_extras(struct doctor *d)
{
	char *v;

	if (program_on_path("b4")) {
		v = program_version("b4", "installed");
		doctor_note(d, DOCTOR_OK, "b4", v);
		free(v);
	} else {
		doctor_note(d, DOCTOR_NOTE, "b4",
			    "not on PATH: 'mkseries series add' and 'mkseries fetch' need it to take a "
			    "series from lore by its message id: apt-get install b4");
	}
}

int cmd_doctor(int argc, const char **argv)
{
	const char *branch = NULL;
	struct strvec given = STRVEC_INIT;
	struct doctor_opts dopts = { 0 };
	struct kernel_branch **sel = NULL;
	struct kit kit = KIT_INIT;
	struct doctor d = DOCTOR_INIT;
	size_t nr = 0;
	int all = 0, ret = 0;
	const struct option opts[] = {
		OPT_CELLS("check for", &branch, &all, " (the default)", &given),
		OPT_WORKDIR(&dopts.workdir),
		OPT_REPO(&dopts.repo),
		OPT_END(),
	};
	const char *usage = "mkseries doctor [--branch B | --all] [--variant V]... "
			    "[--workdir DIR] [--repo DIR]";

	parse_options_only(argc, argv, opts, usage);
	dopts.given = &given;
	dopts.need = NEED_ALL;
	dopts.versions = 1;
	dopts.probe_kvm = 1;
	/* Outside a kit, and asked for no branch: what the machine has, which any kit needs. */
	if (!branch && !given.nr && !kit_found()) {
		doctor_note(&d, DOCTOR_NOTE, "kit", "not in a kit: the machine's own checks only "
			    "(run doctor in the kit, or name it with --kit DIR, to check its branches)");
		doctor_run(&d, NULL, NULL, 0, &dopts);
		goto print;
	}
	if (!branch)
		all = 1;
	if (select_cells(&kit, &sel, &nr, branch, all, &given)) {
		ret = 2;
		goto cleanup;
	}
	doctor_run(&d, &kit, sel, nr, &dopts);
print:
	check_extras(&d);
	doctor_print(&d, stdout);
	ret = doctor_failures(&d) ? 1 : 0;
cleanup:
	doctor_release(&d);
	free(sel);
	kit_release(&kit);
	strvec_clear(&given);
	return ret;
}
