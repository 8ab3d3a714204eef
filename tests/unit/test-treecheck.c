/* test-treecheck.c: unit tests for the path and .gitmodules rules of every tree mkseries writes. */
#include "tap.h"
#include "lib/treecheck.h"

static void check_path(const char *path, const char *want)
{
	is_str(treecheck_path(path, strlen(path)), want, "path '%s'", path);
}

static void test_paths(void)
{
	check_path("mm/mremap.c", NULL);
	check_path("mm/.gitignore", NULL);
	check_path("mm/gitk", NULL);
	check_path("", "empty path");
	check_path("/etc/passwd", "absolute path");
	check_path("mm//x", "empty path component");
	check_path("mm/./x", "path has a '.' component");
	check_path("mm/../../x", "path leaves the tree");
	check_path("mm/\033[2J", "control character in path");
	check_path(".git/config", "path reaches into .git");
	check_path("a/.GiT/hooks/x", "path reaches into .git");
	check_path("a/.git. . /x", "path reaches into .git");
	check_path("a/.git::$INDEX_ALLOCATION/x", "path reaches into .git");
	check_path("a/git~1/x", "path reaches into .git");
	check_path("a/.g\xe2\x80\x8cit/x", "path reaches into .git");
	check_path("a/\xef\xbb\xbf.git/x", "path reaches into .git");
	check_path("a/.gitx/y", NULL);
}

static void test_is_gitmodules(void)
{
	static const char *const yes[] = {
		".gitmodules", ".GITMODULES", ".gitmodules. ", ".gitmodules::$DATA",
		"gitmod~1", "GITMOD~4", "gi7eba~9", ".git\xe2\x80\x8cmodules",
	};
	static const char *const no[] = { ".gitmodule", "gitmodules", "gitmod~5", "x.gitmodules" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++)
		ok(treecheck_is_gitmodules(yes[i], strlen(yes[i])), "'%s' is .gitmodules", yes[i]);
	for (i = 0; i < ARRAY_SIZE(no); i++)
		ok(!treecheck_is_gitmodules(no[i], strlen(no[i])), "'%s' is not .gitmodules", no[i]);
}

static void check_modules(const char *text, const char *want)
{
	struct strbuf why = STRBUF_INIT;
	int ret = treecheck_gitmodules(text, strlen(text), &why);

	if (!want)
		is_int(ret, 0, "accepted: %s", why.len ? why.buf : text);
	else
		is_str(why.buf, want, "refused: %s", want);
	strbuf_release(&why);
}

static void test_gitmodules(void)
{
	check_modules("", NULL);
	check_modules("# nothing\n", NULL);
	check_modules("[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.org/lib.git\n"
		      "\tupdate = rebase\n\tbranch = main\n", NULL);
	check_modules("[submodule \"rel\"]\n\turl = ../lib.git ; a comment\n", NULL);
	check_modules("[submodule \"ssh\"]\r\n\turl = git@example.org:lib.git\r\n", NULL);
	check_modules("[core]\n\tbare\n[submodule \"x\"]\n\tactive\n", NULL);

	check_modules("[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch /tmp/pwned\n",
		      "line 3: disallowed submodule url '--upload-pack=touch /tmp/pwned': "
		      "it could be taken for an option");
	check_modules("[submodule \"x\"]\n\tURL = \"-oProxyCommand=x\"\n",
		      "line 2: disallowed submodule url '-oProxyCommand=x': "
		      "it could be taken for an option");
	check_modules("[submodule.x]\n\turl = \\\n  --upload-pack=x\n",
		      "line 2: disallowed submodule url '--upload-pack=x': "
		      "it could be taken for an option");
	check_modules("[submodule \"x\"]\n\tpath = -x\n",
		      "line 2: disallowed submodule path '-x': it could be taken for an option");
	check_modules("[submodule \"x\"]\n\tupdate = !sh -c pwned\n",
		      "line 2: disallowed submodule update '!sh -c pwned': it runs a command");
	check_modules("[submodule \"../../hooks\"]\n\tpath = x\n",
		      "line 2: disallowed submodule name '../../hooks': empty, or with a '..' component");
	check_modules("[submodule \"a\\\\..\"]\n\tpath = x\n",
		      "line 2: disallowed submodule name 'a\\..': empty, or with a '..' component");
	check_modules("[submodule \"x\"]\n\turl = https://example.org/%0a/x\n",
		      "line 2: disallowed submodule url 'https://example.org/%0a/x': it holds a newline");
	check_modules("[submodule \"x\"]\n\turl = ../../../:x\n",
		      "line 2: disallowed submodule url '../../../:x': it climbs out of its host");
	check_modules("[submodule \"x\"]\n\turl = https:///x.git\n",
		      "line 2: disallowed submodule url 'https:///x.git': it names no host");
	check_modules("[submodule \"x\"]\n\turl = http::https://user@/x\n",
		      "line 2: disallowed submodule url 'http::https://user@/x': it names no host");

	check_modules("url = x\n", "line 1: a key before any section");
	check_modules("[submodule \"x\"\n", "line 1: a section header without its ']'");
	check_modules("[submodule \"x\"]\n\turl = \"open\n", "line 2: an unterminated quote");
	check_modules("[submodule \"x\"]\n\turl = a\\qb\n", "line 2: a bad escape in a value");
	check_modules("\x01\n", "line 1: text that is not git config");
}

int main(void)
{
	test_paths();
	test_is_gitmodules();
	test_gitmodules();
	return tap_done();
}
