/* tools/tcg-cache/contract.h: what the tcg-cache plugin takes and prints, for the plugin and for mkseries alike. */
#ifndef TCG_CACHE_CONTRACT_H
#define TCG_CACHE_CONTRACT_H

/*
 * The plugin's arguments (QEMU's -plugin FILE,ARG=VALUE,...), besides
 * out=FILE which mkseries sets itself. A kernels file's boot.tcg-cache
 * may set any of them; kit/kernels.c checks its keys (and the words'
 * values) against these, and the plugin parses and explains them from
 * here, so no key is spelled anywhere else.
 *   X_SIZED: the levels with a size and an associativity
 *            (NAME_size=N[K|M|G], NAME_assoc=N);
 *   X_LATENCY: the costs in cycles (NAME_latency=CYCLES);
 *   X_WORD: the switches, X(KEY, DEFAULT, OTHER): KEY=DEFAULT|OTHER
 *           (stores=buffered|stall, rep=line|element, user_page=4K|2M).
 */
#define TCG_CACHE_SIZED(X) X(l1d) X(l2) X(llc) X(dtlb) X(stlb)
#define TCG_CACHE_LATENCY(X) X(l2) X(llc) X(stlb) X(mem) X(walk)
#define TCG_CACHE_WORD(X) X(stores, buffered, stall) X(rep, line, element) X(user_page, 4K, 2M)
#define TCG_CACHE_SIZE_KEY(name) #name "_size"
#define TCG_CACHE_ASSOC_KEY(name) #name "_assoc"
#define TCG_CACHE_LATENCY_KEY(name) #name "_latency"
#define TCG_CACHE_OUT_KEY "out"

/*
 * Each region (and the whole run) the plugin prints as one line:
 * "mkseries-cycles: WHAT COUNTER=N ... cycles=N", the counters in
 * TCG_CACHE_COUNTERS' order, then the modelled cycles made of them.
 * New counters go at the end; a reader skips the names it does not know.
 * console/ktap.c reads the line back by these names, through
 * TCG_CACHE_COUNTER(name), which does not compile for a name not listed.
 */
#define TCG_CACHE_LINE "mkseries-cycles:"
#define TCG_CACHE_COUNTERS(X) \
	X(insns) X(l1d_misses) X(l2_misses) X(llc_misses) X(dtlb_misses) X(page_walks) \
	X(l1d_store_misses) X(l2_store_misses) X(llc_store_misses) X(rep_elements) X(rep_lines) \
	X(tlb_flushes) X(tlb_page_flushes)
#define TCG_CACHE_CYCLES "cycles"

#define TCG_CACHE_COUNTER_ID_(name) TCG_CACHE_COUNTER_##name,
enum tcg_cache_counter { TCG_CACHE_COUNTERS(TCG_CACHE_COUNTER_ID_) TCG_CACHE_NR_COUNTERS };
#define TCG_CACHE_COUNTER(name) (&#name[0 * TCG_CACHE_COUNTER_##name])

#endif
