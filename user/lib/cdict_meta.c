// SPDX-License-Identifier: GPL-2.0
/* cdict v2 metadata: the META and END records' map, packed and unpacked. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cdict_format.h"

static void pack_key(msgpack_packer *pk, const char *key)
{
	size_t n = strlen(key);

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, key, n);
}

static void pack_bytes(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);

	msgpack_pack_bin(pk, n);
	msgpack_pack_bin_body(pk, s, n);
}

static void pack_opt_str(msgpack_packer *pk, const char *key, const char *value)
{
	pack_key(pk, key);
	if (value)
		pack_bytes(pk, value);
	else
		msgpack_pack_nil(pk);
}

static void pack_u64(msgpack_packer *pk, const char *key, uint64_t v)
{
	pack_key(pk, key);
	msgpack_pack_uint64(pk, v);
}

static void pack_bool(msgpack_packer *pk, const char *key, bool v)
{
	pack_key(pk, key);
	if (v)
		msgpack_pack_true(pk);
	else
		msgpack_pack_false(pk);
}

#define META_KEYS 26	/* and 2 more when the steal time is known */
#define META_SCHED_CLOCK_KEYS 7	/* with has_sched_clock */

int cdict_pack_meta(msgpack_packer *pk, const struct pwz_meta *m)
{
	/* a flight recorder's dump adds its trigger, a capture that read steal time its two keys
	 * (readers without them skip the keys) */
	msgpack_pack_map(pk, META_KEYS + (m->has_steal ? 2 : 0) + (m->trigger ? 2 : 0) +
			     (m->trigger && m->trigger_tid ? 2 : 0) + (m->has_irq ? 1 : 0) +
			     (m->has_run_delay ? 1 : 0) +
			     (m->has_sched_clock ? META_SCHED_CLOCK_KEYS : 0));
	pack_opt_str(pk, "host", m->host);
	pack_opt_str(pk, "kernel", m->kernel);
	pack_opt_str(pk, "boot_id", m->boot_id);
	pack_opt_str(pk, "cmdline", m->cmdline);
	pack_opt_str(pk, "options", m->options);
	pack_opt_str(pk, "tool_version", m->tool_version);
	pack_opt_str(pk, "source", pwz_source_name(m->source));
	pack_u64(pk, "nr_cpus", m->nr_cpus);
	pack_key(pk, "topology");
	if (m->topo) {
		msgpack_pack_array(pk, m->nr_cpus);
		for (uint32_t i = 0; i < m->nr_cpus; i++) {
			msgpack_pack_array(pk, 3);
			msgpack_pack_int32(pk, m->topo[i].package);
			msgpack_pack_int32(pk, m->topo[i].core);
			msgpack_pack_int32(pk, m->topo[i].llc);
		}
	} else {
		msgpack_pack_nil(pk);
	}
	pack_key(pk, "clock_id");
	msgpack_pack_int32(pk, m->clock_id);
	pack_u64(pk, "start_mono_ns", m->start_mono_ns);
	pack_u64(pk, "start_wall_ns", m->start_wall_ns);
	pack_u64(pk, "duration_ns", m->duration_ns);
	pack_u64(pk, "tracer_cpu_ns", m->tracer_cpu_ns);
	pack_u64(pk, "bpf_run_ns", m->bpf_run_ns);
	pack_u64(pk, "bpf_run_cnt", m->bpf_run_cnt);
	pack_bool(pk, "has_switch_kind", m->has_switch_kind);
	pack_bool(pk, "has_wait", m->has_wait);
	pack_bool(pk, "has_kvm", m->has_kvm);
	pack_bool(pk, "has_prev_state", m->has_prev_state);
	pack_bool(pk, "has_waker", m->has_waker);
	pack_bool(pk, "has_charged", m->has_charged);
	if (m->has_irq)		/* --irq: IRQ_AGG records follow (none: no interrupt seen) */
		pack_bool(pk, "has_irq", true);
	if (m->has_run_delay)	/* WAIT_AGG elements 8, 9 (absent: no charge, as older files) */
		pack_bool(pk, "has_run_delay", true);
	if (m->has_steal) {
		pack_u64(pk, "steal_ns", m->steal_ns);
		pack_u64(pk, "cpu_time_ns", m->cpu_time_ns);
	}
	if (m->has_sched_clock) {	/* model.h R0 (absent: every stamp read clock_id) */
		const struct pwz_sched_clock *k = &m->sched_clock;

		pack_u64(pk, "sched_clock_pairs", k->pairs);
		pack_key(pk, "sched_clock_drift_ppb");
		msgpack_pack_int64(pk, k->drift_ppb);
		pack_u64(pk, "sched_clock_residual_ns", k->residual_ns);
		pack_u64(pk, "sched_clock_spread_ns", k->spread_ns);
		pack_u64(pk, "sched_clock_stamped", k->stamped);
		pack_u64(pk, "sched_clock_stale", k->stale);
		pack_u64(pk, "sched_clock_late", k->late);
	}
	pack_opt_str(pk, "threads", m->threads == PWZ_THREADS_ALL ? "all" :
		     m->threads == PWZ_THREADS_SELECTED ? "selected" : NULL);
	pack_key(pk, "exit_names");
	msgpack_pack_array(pk, m->nr_exit_names);
	for (uint32_t i = 0; i < m->nr_exit_names; i++) {
		msgpack_pack_array(pk, 3);
		msgpack_pack_uint32(pk, m->exit_names[i].isa);
		msgpack_pack_uint32(pk, m->exit_names[i].code);
		pack_bytes(pk, m->exit_names[i].name);
	}
	pack_key(pk, "drops");
	msgpack_pack_map(pk, m->nr_drops);
	for (uint32_t i = 0; i < m->nr_drops; i++) {
		pack_key(pk, m->drops[i].name);
		msgpack_pack_uint64(pk, m->drops[i].value);
	}
	if (m->trigger) {
		pack_opt_str(pk, "trigger", m->trigger);
		pack_u64(pk, "trigger_ns", m->trigger_ns);
	}
	if (m->trigger && m->trigger_tid) {
		pack_u64(pk, "trigger_tid", m->trigger_tid);
		pack_opt_str(pk, "trigger_thread", m->trigger_thread);
	}
	pack_key(pk, "format");
	msgpack_pack_uint32(pk, 2);
	return 0;
}

/* Reads the value of META key "sched_clock_<name>" into m (an unknown name is skipped). */
static void unpack_sched_clock(struct mp_cursor *c, const char *name, struct pwz_meta *m)
{
	struct pwz_sched_clock *k = &m->sched_clock;

	m->has_sched_clock = true;
	if (!strcmp(name, "pairs"))
		k->pairs = mp_read_uint(c);
	else if (!strcmp(name, "drift_ppb"))
		k->drift_ppb = mp_read_int_any(c);
	else if (!strcmp(name, "residual_ns"))
		k->residual_ns = mp_read_uint(c);
	else if (!strcmp(name, "spread_ns"))
		k->spread_ns = mp_read_uint(c);
	else if (!strcmp(name, "stamped"))
		k->stamped = mp_read_uint(c);
	else if (!strcmp(name, "stale"))
		k->stale = mp_read_uint(c);
	else if (!strcmp(name, "late"))
		k->late = mp_read_uint(c);
	else
		mp_skip(c);
}

/* Reads a str/bin or nil into a malloc'd string at *field. */
static int unpack_opt_str(struct mp_cursor *c, char **field)
{
	const uint8_t *data;
	uint32_t len;

	if (mp_peek(c) == MP_NIL) {
		mp_read_nil(c);
		return 0;
	}
	data = mp_read_bytes(c, &len);
	if (c->err)
		return -EINVAL;
	free(*field);
	*field = malloc(len + 1);
	if (!*field)
		return -ENOMEM;
	memcpy(*field, data, len);
	(*field)[len] = '\0';
	return 0;
}

static uint32_t source_from_name(const char *s)
{
	for (uint32_t i = 0; i <= PWZ_SOURCE_SYNTHETIC; i++) {
		if (!strcmp(s, pwz_source_name(i)))
			return i;
	}
	return PWZ_SOURCE_SYNTHETIC;
}

static int unpack_topology(struct mp_cursor *c, struct pwz_meta *m, uint32_t *count)
{
	uint32_t n;

	if (mp_peek(c) == MP_NIL) {
		mp_read_nil(c);
		return 0;
	}
	n = mp_read_array(c);
	if (n > PWZ_MAX_CPUS) {
		mp_fail(c, "topology lists more CPUs than pwz supports");
		return -EINVAL;
	}
	free(m->topo);
	m->topo = calloc(n ? n : 1, sizeof(*m->topo));
	if (!m->topo)
		return -ENOMEM;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		if (mp_read_array(c) < 3) {
			mp_fail(c, "topology entry has fewer than 3 fields");
			break;
		}
		m->topo[i].package = (int32_t)mp_read_int(c);
		m->topo[i].core = (int32_t)mp_read_int(c);
		m->topo[i].llc = (int32_t)mp_read_int(c);
	}
	*count = n;
	return c->err ? -EINVAL : 0;
}

static int unpack_exit_names(struct mp_cursor *c, struct pwz_meta *m)
{
	uint32_t n = mp_read_array(c);
	char name[48];

	for (uint32_t i = 0; i < n && !c->err; i++) {
		uint32_t isa, code, fields = mp_read_array(c);

		if (fields < 3) {
			mp_fail(c, "exit name entry has fewer than 3 fields");
			break;
		}
		isa = (uint32_t)mp_read_uint(c);
		code = (uint32_t)mp_read_uint(c);
		mp_read_string(c, name, sizeof(name));
		for (uint32_t k = 3; k < fields; k++)
			mp_skip(c);
		if (!c->err) {
			int ret = pwz_meta_add_exit_name(m, isa, code, name);

			if (ret == -E2BIG) {
				mp_fail(c, "more exit names than pwz supports (4096)");
				break;
			}
			if (ret)
				return ret;
		}
	}
	return c->err ? -EINVAL : 0;
}

/* "threads": "all", "selected", or nil / anything else: unknown. */
static uint32_t unpack_threads(struct mp_cursor *c)
{
	char v[16];

	if (mp_peek(c) != MP_STR && mp_peek(c) != MP_BIN) {
		mp_skip(c);
		return PWZ_THREADS_UNKNOWN;
	}
	mp_read_string(c, v, sizeof(v));
	return !strcmp(v, "all") ? PWZ_THREADS_ALL :
	       !strcmp(v, "selected") ? PWZ_THREADS_SELECTED : PWZ_THREADS_UNKNOWN;
}

static int unpack_drops(struct mp_cursor *c, struct pwz_meta *m)
{
	uint32_t n = mp_read_map(c);
	char name[32];

	for (uint32_t i = 0; i < n && !c->err; i++) {
		uint64_t v;

		mp_read_string(c, name, sizeof(name));
		v = mp_read_uint(c);
		if (!c->err && pwz_meta_add_drop(m, name, v)) {
			mp_fail(c, "too many drop counters");
			break;
		}
	}
	return c->err ? -EINVAL : 0;
}

int cdict_unpack_meta(struct mp_cursor *c, struct pwz_meta *m)
{
	uint32_t n;
	char key[32], source[32];
	uint32_t topo_count = 0;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	m->clock_id = -1;
	n = mp_read_map(c);
	for (uint32_t i = 0; i < n && !c->err && !ret; i++) {
		mp_read_string(c, key, sizeof(key));
		if (!strcmp(key, "host"))
			ret = unpack_opt_str(c, &m->host);
		else if (!strcmp(key, "kernel"))
			ret = unpack_opt_str(c, &m->kernel);
		else if (!strcmp(key, "boot_id"))
			ret = unpack_opt_str(c, &m->boot_id);
		else if (!strcmp(key, "cmdline"))
			ret = unpack_opt_str(c, &m->cmdline);
		else if (!strcmp(key, "options"))
			ret = unpack_opt_str(c, &m->options);
		else if (!strcmp(key, "tool_version"))
			ret = unpack_opt_str(c, &m->tool_version);
		else if (!strcmp(key, "source")) {
			mp_read_string(c, source, sizeof(source));
			m->source = source_from_name(source);
		} else if (!strcmp(key, "nr_cpus")) {
			uint64_t v = mp_read_uint(c);

			if (v > PWZ_MAX_CPUS)
				mp_fail(c, "nr_cpus larger than pwz supports");
			m->nr_cpus = (uint32_t)v;
		} else if (!strcmp(key, "topology"))
			ret = unpack_topology(c, m, &topo_count);
		else if (!strcmp(key, "clock_id"))
			m->clock_id = (int32_t)mp_read_int(c);
		else if (!strcmp(key, "start_mono_ns"))
			m->start_mono_ns = mp_read_uint(c);
		else if (!strcmp(key, "start_wall_ns"))
			m->start_wall_ns = mp_read_uint(c);
		else if (!strcmp(key, "duration_ns"))
			m->duration_ns = mp_read_uint(c);
		else if (!strcmp(key, "tracer_cpu_ns"))
			m->tracer_cpu_ns = mp_read_uint(c);
		else if (!strcmp(key, "bpf_run_ns"))
			m->bpf_run_ns = mp_read_uint(c);
		else if (!strcmp(key, "bpf_run_cnt"))
			m->bpf_run_cnt = mp_read_uint(c);
		else if (!strcmp(key, "has_switch_kind"))
			m->has_switch_kind = mp_read_bool(c);
		else if (!strcmp(key, "has_wait"))
			m->has_wait = mp_read_bool(c);
		else if (!strcmp(key, "has_kvm"))
			m->has_kvm = mp_read_bool(c);
		else if (!strcmp(key, "has_prev_state"))
			m->has_prev_state = mp_read_bool(c);
		else if (!strcmp(key, "has_waker"))
			m->has_waker = mp_read_bool(c);
		else if (!strcmp(key, "has_charged"))
			m->has_charged = mp_read_bool(c);
		else if (!strcmp(key, "has_irq"))
			m->has_irq = mp_read_bool(c);
		else if (!strcmp(key, "has_run_delay"))
			m->has_run_delay = mp_read_bool(c);
		else if (!strcmp(key, "steal_ns")) {
			m->steal_ns = mp_read_uint(c);
			m->has_steal = true;
		} else if (!strcmp(key, "cpu_time_ns"))
			m->cpu_time_ns = mp_read_uint(c);
		else if (!strncmp(key, "sched_clock_", 12))
			unpack_sched_clock(c, key + 12, m);
		else if (!strcmp(key, "threads"))
			m->threads = unpack_threads(c);
		else if (!strcmp(key, "exit_names"))
			ret = unpack_exit_names(c, m);
		else if (!strcmp(key, "drops"))
			ret = unpack_drops(c, m);
		else if (!strcmp(key, "trigger"))
			ret = unpack_opt_str(c, &m->trigger);
		else if (!strcmp(key, "trigger_ns"))
			m->trigger_ns = mp_read_uint(c);
		else if (!strcmp(key, "trigger_tid"))
			m->trigger_tid = (uint32_t)mp_read_uint(c);
		else if (!strcmp(key, "trigger_thread"))
			ret = unpack_opt_str(c, &m->trigger_thread);
		else
			mp_skip(c);
	}
	if (!ret && c->err)
		ret = -EINVAL;
	if (!ret && m->topo && topo_count != m->nr_cpus) {
		mp_fail(c, "topology length differs from nr_cpus");
		ret = -EINVAL;
	}
	if (ret)
		pwz_meta_free(m);
	return ret;
}
