/* builtin/builtin.h: one function per subcommand; each returns the exit status (0, 1 or 2). */
#ifndef MKSERIES_BUILTIN_H
#define MKSERIES_BUILTIN_H

int cmd_import(int argc, const char **argv);
int cmd_plan(int argc, const char **argv);
int cmd_apply(int argc, const char **argv);
int cmd_backport(int argc, const char **argv);
int cmd_regress(int argc, const char **argv);
int cmd_fixups(int argc, const char **argv);
int cmd_fetch(int argc, const char **argv);
int cmd_run(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_export(int argc, const char **argv);
int cmd_build(int argc, const char **argv);
int cmd_test(int argc, const char **argv);
int cmd_doctor(int argc, const char **argv);
int cmd_ci(int argc, const char **argv);
int cmd_series(int argc, const char **argv);
int cmd_gc(int argc, const char **argv);
/*
 * `mkseries --list=kits`: the ids of the kits the cache holds work
 * directories or refs of, one a line, but `current` (may be NULL): what
 * gc --drop takes.
 */
int gc_list_kits(const char *current);
int cmd_bisect(int argc, const char **argv);

#endif
