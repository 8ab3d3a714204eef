/*
 * kit/load.h: what the files of the kit loader share (from the bottom:
 * yaml.c, find.c, claims.c, series.c, kernels.c, check.c, with model.c
 * on top; calls go only downwards); the rest of the tool goes through
 * model.h.
 */
#ifndef MKSERIES_MODELLOAD_H
#define MKSERIES_MODELLOAD_H

#include <yaml.h>

#include "kit/model.h"
#include "lib/util.h"

/* One pass over a kit: how the user names its directory, and the errors so far. */
struct loader {
	struct kit *kit;
	char *prefix;		/* "" for ".", else "dir/": prepended to file names in messages */
	int errors;
};

/* Whose claims are checked: it decides what `than` may name. */
enum claim_owner { OWNER_SERIES, OWNER_BRANCH, OWNER_VARIANT };

/* One YAML file being read. */
struct yfile {
	struct loader *ld;
	char *name;		/* as shown in messages */
	yaml_document_t doc;
	int loaded;		/* doc holds a document to delete */
};

/* modelyaml.c */

/* Print "file:line: message" (the text made printable) and count an error of the load. */
__attribute__((format(printf, 3, 4)))
void yfile_report(struct yfile *f, int line, const char *fmt, ...);

/* The 1-based line a node starts on. */
int ynode_line(const yaml_node_t *n);

/* Node `index` of f's document. */
yaml_node_t *yfile_node(struct yfile *f, int index);

/* The text of a scalar node (only scalars have one). */
const char *ynode_text(const yaml_node_t *n);

/* No node, or a null one: the key may as well not be there. */
int ynode_absent(const yaml_node_t *n);

/* "a mapping", "a sequence", "a string", "an empty value": for messages. */
const char *ynode_kind_name(const yaml_node_t *n);

/* "a, b, c" from a NULL-terminated key list. */
void join_keys(struct strbuf *sb, const char *const *keys);

/* The text of scalar `n`, or NULL (reported) when it is not one `want` can be. */
const char *yfile_scalar(struct yfile *f, yaml_node_t *n, const char *key, const char *want);

/*
 * Copy the one-line string `n` into *out, replacing what was there.
 * Absent, null and "" leave *out alone. Returns -1 (reported) on a
 * value of the wrong type.
 */
int yfile_get_str(struct yfile *f, yaml_node_t *n, const char *key, char **out);

/* A required string; `owner` names what lacks it, at `line`, when the key is absent. */
void yfile_need_str(struct yfile *f, yaml_node_t *n, const char *key, int line,
		    const char *owner, char **out);

/* A true/false (yes/no, on/off) key into *out; absent leaves it alone. Returns -1 (reported) otherwise. */
int yfile_get_bool(struct yfile *f, yaml_node_t *n, const char *key, int *out);

/* Decimal digits only, at most 9 of them (no overflow). Returns -1 otherwise. */
int parse_digits(const char *v, size_t len, unsigned *out);

/* An unsigned key within [min, max] into *out; absent leaves it alone. Returns -1 (reported) otherwise. */
int yfile_get_uint(struct yfile *f, yaml_node_t *n, const char *key, unsigned min,
		   unsigned max, unsigned *out);

/* The key of a mapping pair, or NULL (reported) when it is not a string or repeats. */
const char *yfile_key_text(struct yfile *f, yaml_node_t *map, yaml_node_pair_t *pair);

/*
 * Sort the pairs of mapping `map` into out[] by `keys` (NULL-terminated;
 * out[i] is the value of keys[i], or NULL). Unknown and repeated keys are
 * reported and skipped. Returns -1 (reported) when `map` is no mapping.
 */
int yfile_map_fields(struct yfile *f, yaml_node_t *map, const char *what,
		     const char *const *keys, yaml_node_t **out);

/*
 * The items of sequence `n` in a new array (caller frees), or NULL with
 * *nr = 0 when absent or wrong (reported). With `one_ok`, a single
 * scalar stands for a sequence of one.
 */
yaml_node_t **yfile_seq_nodes(struct yfile *f, yaml_node_t *n, const char *key, int one_ok,
			      size_t *nr);

/* 8 to 40 hex digits, either case. */
int is_hex_id(const char *s);

/* Two upstream ids name the same commit when one abbreviates the other. */
int same_commit(const char *a, const char *b);

/* Series ids name directories and refs: [a-z0-9][a-z0-9._-]*. */
int valid_series_id(const char *s);

/* Branch names end up in ref names and file names: keep them plain. */
int valid_branch_name(const char *s);

/* mm-regress names its cases with lowercase letters, digits and '_'. */
int valid_case_name(const char *s);

/* s without its leading "./"s. */
const char *skip_dot_slash(const char *s);

/* What follows the last '/' of s. */
const char *base_name(const char *s);

/*
 * A path named by the kit must stay inside it and exist, as a directory
 * when `want_dir`, else as a file. Returns -1 (reported) otherwise.
 */
int check_kit_path(struct yfile *f, int line, const char *what, const char *path,
		   int want_dir);

/* An absolute path for `path`: kept when absolute, ~-expanded, else under the kit. */
char *kit_abspath(struct yfile *f, int line, const char *path);

/* Read and parse `rel` (relative to the kit) into f->doc. Returns the root, or NULL (reported). */
yaml_node_t *yfile_load(struct yfile *f, struct loader *ld, const char *rel);

/* Free what yfile_load() made; f may never have been loaded. */
void yfile_release(struct yfile *f);

/* modelfind.c */

/* Entries `what` names (upstream abbreviation or file), in kit order, in a new array. */
size_t match_entries(const struct kit *kit, const char *what, struct kit_patch ***out);

/* A series' id for a message: "?" when it has none. */
const char *series_sid(const struct kit_series *s);
/* modelclaims.c */

/* `claims:`, a sequence of claims, into a new array. */
void parse_claims(struct yfile *f, yaml_node_t *n, struct kit_claim **out, size_t *nr);

/* `verdicts: { threshold: N% }`, in series.yaml or a kernel file. */
void parse_verdicts(struct yfile *f, yaml_node_t *n, double *threshold);

/* `costs:` of a kernel file, into a new array; a metric's second cost is an error. */
void parse_costs(struct yfile *f, yaml_node_t *n, struct kit_cost **out, size_t *nr);

/* Free an array from parse_claims(); NULL is fine. */
void claims_free(struct kit_claim *c, size_t nr);

/*
 * What `than` may name: base, or a declared variant (of any branch for
 * a series, of its own branch otherwise); a variant's claims may also
 * name the kit. The cell a claim is checked on is never its own `than`.
 */
void check_claims_than(struct yfile *f, const struct kit_claim *c, size_t nr,
		       enum claim_owner owner, const struct kernel_branch *b, const char *self);

/* modelseries.c */

/* series.yaml into ld->kit through f; errors counted in ld. */
void load_series(struct loader *ld, struct yfile *f);

/* modelkernels.c */

/* Every kernels/<branch>.yaml, sorted by version; errors counted in ld. */
void load_kernels(struct loader *ld);

/* modelcheck.c */

/* The checks that need the whole kit. */
void check_kit(struct yfile *f);

#endif
