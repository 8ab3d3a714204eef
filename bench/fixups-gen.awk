# bench/fixups-gen.awk: write a git fast-import stream of kernel-like commits for bench/fixups.sh.
#
# Variables (awk -v): count (commits to write), gstart (global index of the
# first one: dates and tags follow it), seed, root (1: the stream starts the
# history), inject (a file of "@@ OFFSET NAME" headers each followed by a
# whole commit message: written as the commit at that offset, its mark
# recorded in "map" as "NAME :MARK"), markbase (first mark number).
function near_inject(d,    i) {
	for (i = d; i < d + 12; i++)
		if (i in inj_off)
			return 1
	return 0
}
function pick(a, n) { return a[int(rand() * n) + 1] }
function hex(n,    s, i) {
	s = ""
	for (i = 0; i < n; i++)
		s = s substr("0123456789abcdef", int(rand() * 16) + 1, 1)
	return s
}
function subject(    s) {
	s = pick(subsys, nsubsys) ": " pick(verbs, nverbs) " " pick(words, nwords) " " pick(words, nwords)
	if (rand() < 0.6)
		s = s " " pick(preps, npreps) " " pick(words, nwords) "_" pick(words, nwords) "()"
	return s
}
function person() { return pick(names, nnames) }
function message(    m, n, i, p, r) {
	m = subject() "\n"
	r = rand()
	if (r < 0.005)
		m = "Revert \"" subject() "\"\n\nThis reverts commit " hex(40) ".\n"
	n = int(rand() * 3) + 1
	for (p = 0; p < n; p++) {
		m = m "\n"
		for (i = int(rand() * 4) + 1; i > 0; i--)
			m = m pick(lines, nlines) "\n"
	}
	if (rand() < 0.05)
		m = m "\nThis was introduced by commit " hex(12) " (\"" subject() "\")\nwhen the lock was split.\n"
	m = m "\n"
	if (rand() < 0.09)
		m = m "Fixes: " hex(12) " (\"" subject() "\")\n"
	if (rand() < 0.001)
		m = m "Stable-dep-of: " hex(12) " (\"" subject() "\")\n"
	if (rand() < 0.2)
		m = m "Reported-by: " person() "\n"
	if (rand() < 0.04)
		m = m "Cc: stable@vger.kernel.org\n"
	m = m "Signed-off-by: " person() "\n"
	if (rand() < 0.4)
		m = m "Reviewed-by: " person() "\n"
	if (rand() < 0.2)
		m = m "Acked-by: " person() "\n"
	if (rand() < 0.6)
		m = m "Link: https://lore.kernel.org/r/20" int(rand() * 90 + 10) "0" int(rand() * 9 + 1) hex(6) "." hex(8) "@" pick(hosts, nhosts) "\n"
	if (rand() < 0.7)
		m = m "Signed-off-by: " person() "\n"
	return m
}
function commit(ref, msg, from, merge,    who, t) {
	mark++
	t = 1100000000 + (gstart + done) * 300
	who = person()
	printf "commit %s\nmark :%d\nauthor %s %d +0000\ncommitter %s %d +0000\ndata %d\n%s", \
		ref, mark, who, t - int(rand() * 86400), "Maint Ainer <maint@kernel.org>", t, length(msg), msg
	if (from != "")
		printf "from %s\n", from
	if (merge != "")
		printf "merge %s\n", merge
	if (root && mark == markbase + 1)
		printf "M 100644 inline README\ndata 7\nhello.\n"
	printf "\n"
	done++
	return mark
}
function tag_at(g,    c, pos) {
	c = int(g / 12000) + 1
	pos = g % 12000
	if (pos > 0 && pos % 1500 == 0 && pos / 1500 <= 7)
		return "v2." c "-rc" (pos / 1500)
	if (pos == 11999)
		return "v2." c
	return ""
}
# Tag mainline commit m when a tag position was passed since the last one
# (topic commits take positions too but are never tagged).
function maybe_tag(m,    g, name, msg) {
	name = ""
	for (g = tagged + 1; g <= gstart + done - 1; g++)
		if (tag_at(g) != "")
			name = tag_at(g)
	tagged = gstart + done - 1
	if (name == "")
		return
	msg = "Linux " substr(name, 2) "\n"
	printf "tag %s\nfrom :%d\ntagger Linus Torvalds <torvalds@linux-foundation.org> %d +0000\ndata %d\n%s\n", \
		name, m, 1100000000 + g * 300, length(msg), msg
}
function mainline(msg, merge,    m) {
	m = commit("refs/heads/master", msg, first ? "refs/heads/master^0" : "", merge)
	first = 0
	maybe_tag(m)
	return m
}
BEGIN {
	srand(seed)
	mark = markbase
	done = 0
	tagged = gstart - 1
	first = !root
	nsubsys = split("mm mm/mremap mm/madvise mm/huge_memory net ipv6 drm/i915 drm/amdgpu fs/ext4 btrfs xfs x86/mm arm64 sched/fair usb:~dwc3 nvme bpf io_uring KVM:~x86 ALSA:~hda selftests/mm", subsys, " ")
	for (i = 1; i <= nsubsys; i++)
		gsub(/~/, " ", subsys[i])
	nverbs = split("fix add remove avoid handle use drop rework convert introduce simplify check honour skip", verbs, " ")
	npreps = split("in for from during on when", preps, " ")
	nwords = split("page folio lock pte pmd pud vma batch range race leak count refcount flag mapping table cache flush fault entry queue buffer device driver state path error return value mremap madvise rmap anon shmem swap tlb", words, " ")
	nnames = split("Dev_Jain_<dev.jain@arm.com> Lorenzo_Stoakes_<lorenzo.stoakes@oracle.com> SeongJae_Park_<sj@kernel.org> Andrew_Morton_<akpm@linux-foundation.org> David_Hildenbrand_<david@redhat.com> Kalesh_Singh_<kaleshsingh@google.com> Vlastimil_Babka_<vbabka@suse.cz> Liam_R._Howlett_<Liam.Howlett@oracle.com> Greg_Kroah-Hartman_<gregkh@linuxfoundation.org> kernel_test_robot_<oliver.sang@intel.com>", names, " ")
	for (i = 1; i <= nnames; i++)
		gsub(/_/, " ", names[i])
	nhosts = split("arm.com oracle.com kernel.org google.com redhat.com intel.com", hosts, " ")
	for (i = 1; i <= 400; i++) {
		l = ""
		while (length(l) < 60)
			l = l (l == "" ? "" : " ") pick(words, nwords)
		lines[i] = l
	}
	nlines = 400
	ninj = 0
	if (inject != "") {
		while ((getline l < inject) > 0) {
			if (l ~ /^@@ /) {
				split(l, f, " ")
				ninj++
				inj_off[f[2]] = ninj
				inj_name[ninj] = f[3]
				inj_msg[ninj] = ""
			} else {
				inj_msg[ninj] = inj_msg[ninj] l "\n"
			}
		}
	}
	while (done < count) {
		if ((done in inj_off)) {
			k = inj_off[done]
			m = mainline(inj_msg[k], "")
			print inj_name[k], ":" m > map
			continue
		}
		if (done > 0 && rand() < 0.03 && count - done > 12 && !near_inject(done)) {
			# a topic branch forked from the tip, merged back
			base = mark
			n = int(rand() * 8) + 2
			for (j = 0; j < n; j++)
				tip = commit("refs/heads/topic", message(), j == 0 ? ":" base : "", "")
			mainline("Merge branch '" pick(words, nwords) "-" pick(words, nwords) "'\n\n" pick(lines, nlines) "\n", ":" tip)
			continue
		}
		mainline(message(), "")
	}
}
