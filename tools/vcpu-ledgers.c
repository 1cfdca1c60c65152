// SPDX-License-Identifier: GPL-2.0
/* Prints a capture's vCPU ledgers (model.h R10) as JSON: the file's own and the one ledger_fold folds from its records. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cdict.h"
#include "json.h"
#include "ledger_fold.h"
#include "records.h"
#include "visit.h"

static const char usage[] =
	"Usage: vcpu-ledgers FILE.cdict\n"
	"Prints, as one JSON object, the vCPU state ledgers (model.h R10) FILE holds (\"file\":\n"
	"the kernel's, or an import's) and the ones user/lib/ledger_fold.c folds from FILE's\n"
	"task, slice, wakeup and KVM exit records over [0, duration_ns) (\"fold\"), each a list of\n"
	"{tid, since_ns, alive_ns, ns, count, stretches, cause_ns, costop_ns} in file order (the\n"
	"file may repeat an instance), with the capture's duration_ns, options and drops, so that\n"
	"the two can be held against each other (tests/vmtest/check.py ledgers).\n";

/* What the read keeps besides the fold. */
struct file_side {
	struct jbuf *out;	/* the "file" list, being written */
	size_t nr;		/* ledgers written to it */
	struct pwz_meta meta;	/* the final metadata */
};

/* Appends ledger l as an object. */
static void put_ledger(struct jbuf *b, const struct pwz_vcpu_ledger *l)
{
	unsigned int s, c, k;

	jbuf_puts(b, "{\"tid\":");
	jbuf_u64(b, l->tid);
	jbuf_member_u64(b, "since_ns", l->since_ns);
	jbuf_member_u64(b, "alive_ns", l->alive_ns);
	for (k = 0; k < 3; k++) {
		static const char *const key[] = { "ns", "count", "stretches" };

		jbuf_key(b, key[k], false);
		for (s = 0; s < PWZ_VCPU_STATES; s++) {
			uint64_t v = k == 0 ? l->ns[s] : k == 1 ? l->count[s] :
				     pwz_hist_total(l->hist[s]);
			jbuf_puts(b, s ? "," : "{");
			jbuf_key(b, pwz_vcpu_state_name(s), true);
			jbuf_u64(b, v);
		}
		jbuf_puts(b, "}");
	}
	jbuf_key(b, "cause_ns", false);
	for (c = 0; c < PWZ_READY_CAUSES; c++) {
		jbuf_puts(b, c ? "," : "{");
		jbuf_key(b, pwz_ready_cause_name(c), true);
		jbuf_u64(b, l->cause_ns[c]);
	}
	jbuf_puts(b, "}");
	jbuf_member_u64(b, "costop_ns", l->costop_ns);
	jbuf_puts(b, "}");
}

static int on_meta(void *ctx, const struct pwz_meta *m)
{
	struct file_side *fs = ctx;

	return pwz_meta_copy(&fs->meta, m);
}

static int on_ledger(void *ctx, const struct pwz_vcpu_ledger *l)
{
	struct file_side *fs = ctx;

	jbuf_puts(fs->out, fs->nr++ ? "," : "");
	put_ledger(fs->out, l);
	return fs->out->err;
}

int main(int argc, char **argv)
{
	struct jbuf out = { 0 };
	struct file_side fs = { .out = &out };
	struct ledger_fold *f = ledger_fold__new();
	struct visit_tee tee;
	struct cdict_visitor v;
	struct cdict_read_info info;
	char err[512] = "";
	int ret;

	if (argc != 2 || argv[1][0] == '-') {
		fputs(usage, argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	if (!f) {
		fprintf(stderr, "vcpu-ledgers: out of memory\n");
		return 1;
	}
	tee = (struct visit_tee){
		.a = ledger_fold__visitor(f),
		.b = { .ctx = &fs, .meta = on_meta, .vcpu_ledger = on_ledger },
	};
	v = visit_tee__visitor(&tee);
	jbuf_puts(&out, "{\"file\":[");
	ret = cdict_read(argv[1], &v, &info, err, sizeof(err));
	jbuf_puts(&out, "],\"fold\":[");
	fs.nr = 0;
	if (!ret)
		ret = ledger_fold__emit(f, fs.meta.duration_ns, &tee.b);
	jbuf_puts(&out, "]");
	jbuf_member_u64(&out, "duration_ns", fs.meta.duration_ns);
	jbuf_member_str(&out, "options", fs.meta.options);
	jbuf_member_u64(&out, "cut", info.cut);
	jbuf_key(&out, "drops", false);
	for (uint32_t i = 0; i < fs.meta.nr_drops; i++) {
		jbuf_puts(&out, i ? "," : "{");
		jbuf_key(&out, fs.meta.drops[i].name, true);
		jbuf_u64(&out, fs.meta.drops[i].value);
	}
	jbuf_puts(&out, fs.meta.nr_drops ? "}}\n" : "{}}\n");
	if (!ret && out.err)
		ret = out.err;
	if (ret) {
		fprintf(stderr, "vcpu-ledgers: %s\n", err[0] ? err : strerror(ret < 0 ? -ret : ret));
	} else {
		fwrite(out.buf, 1, out.len, stdout);
	}
	pwz_meta_free(&fs.meta);
	ledger_fold__free(f);
	jbuf_free(&out);
	return ret ? 1 : 0;
}
