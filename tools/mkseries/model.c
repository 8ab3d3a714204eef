/* model.c: placeholder until the loader lands. */
#include "model.h"
#include "util.h"
int kit_load(struct kit *kit, const char *dir) { return error("model not written yet"); }
void kit_release(struct kit *kit) {}
struct kit_series *kit_find_series(const struct kit *kit, const char *id) { return NULL; }
struct kernel_branch *kit_find_branch(const struct kit *kit, const char *name) { return NULL; }
struct kit_patch *kit_find_patch(const struct kit *kit, const char *what, int *ambiguous) { return NULL; }
const struct decision *series_decision(const struct kit_series *s, const char *branch) { return NULL; }
const struct decision *patch_decision(const struct kit_patch *p, const char *branch) { return NULL; }
const char *kit_patch_label(const struct kit_patch *p) { return ""; }
