/* fixture.h: find and read the unit tests' fixture files under tests/data/. */
#ifndef MKSERIES_FIXTURE_H
#define MKSERIES_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

static const char *data_dir;

/*
 * tests/data/<sub> from the source tree (how `make test` runs), $ENV when
 * set, or found from build-x/tests/<binary> upwards.
 */
static void find_data_dir(const char *argv0, const char *env, const char *sub)
{
	static char buf[4096];
	const char *slash = strrchr(argv0, '/');
	char *rel = path_join("tests/data", sub);

	data_dir = getenv(env);
	if (!data_dir && dir_exists(rel)) {
		snprintf(buf, sizeof(buf), "%s", rel);
		data_dir = buf;
	} else if (!data_dir) {
		snprintf(buf, sizeof(buf), "%.*s/../../%s", slash ? (int)(slash - argv0) : 1,
			 slash ? argv0 : ".", rel);
		data_dir = buf;
	}
	free(rel);
}

/* Read fixture `name` into sb (reset first); says why on failure. */
static int load(struct strbuf *sb, const char *name)
{
	char *path = path_join(data_dir, name);
	int ret;

	strbuf_reset(sb);
	ret = strbuf_read_file(sb, path);
	if (ret)
		printf("# cannot read %s: %s\n", path, strerror(errno));
	free(path);
	return ret;
}

#endif
