// SPDX-License-Identifier: GPL-2.0
// Queries a fleet tree of `pwz-render --export parquet` files with DuckDB and holds every figure
// against `pwz-render --list --json` of the same captures, and the schemas against docs/fleet.md.
// Usage: node check.js FLEET_DIR DOCS_MD LABEL=TRACE_ID=LIST.json...
// Prints "ok: ..." / "FAIL: ..." lines; tests/parquet/run counts them.
'use strict';
const fs = require('fs');
const { DuckDBInstance } = require('@duckdb/node-api');

const [fleet, docsPath, ...capArgs] = process.argv.slice(2);
const caps = capArgs.map((a) => {
	const [label, id, list] = a.split('=');
	// integers past 2^53 (wall-clock ns) stay exact as strings
	const text = fs.readFileSync(list, 'utf8').replace(/([:,[]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"');
	return { label, id, list: JSON.parse(text) };
});
let conn;
// gen-synthetic --exit-split (tools/gen-synthetic.c says why): ts, dur, reason, on, ready, sleep.
// IO: on [4000, 5000) and [8000, 9000), ready (preempted) [5000, 8000); HLT: on [11000, 12000)
// and [21000, 22000), asleep [12000, 20000), ready (woken) [20000, 21000); the last: no entry.
const handRows = [
	[2000, 500, 'EXTERNAL_INTERRUPT', 500, 0, 0],
	[4000, 5000, 'IO_INSTRUCTION', 2000, 3000, 0],
	[11000, 11000, 'HLT', 2000, 1000, 8000],
	[25000, 1000, 'EPT_VIOLATION', 1000, 0, 0],
	[29000, null, 'IO_INSTRUCTION', null, null, null],
];
const hand = { exitsplit: handRows, exitsplit_live: handRows };

function ok(m) { console.log(`ok: ${m}`); }
function ko(m) { console.log(`FAIL: ${m}`); }
function check(cond, m, detail) { cond ? ok(m) : ko(detail ? `${m}: ${detail}` : m); }
const s = (v) => (v === null || v === undefined ? null : String(v));
const glob = (t) => `read_parquet('${fleet}/${t}/*.parquet')`;
// Table t with each row's thread instance birth ("born", 0 for a thread there at the start),
// through its utid (a recycled tid is two threads: user/lib/model.h R8).
const inst = (t) => `(select x.*, coalesce(th.start_ts, 0) born from ${glob(t)} x join ${glob('thread')} th
	on th.trace_id = x.trace_id and th.utid = x.utid)`;

async function q(sql) {
	const r = await conn.runAndReadAll(sql);
	return r.getRowObjectsJson();
}

// Compares two maps key -> row of strings; returns the first difference or null.
function diff(want, got) {
	for (const [k, w] of want) {
		const g = got.get(k);
		if (!g)
			return `${k}: missing (want ${JSON.stringify(w)})`;
		for (const f of Object.keys(w)) {
			if (s(w[f]) !== s(g[f]))
				return `${k}.${f}: ${s(g[f])}, --list says ${s(w[f])}`;
		}
	}
	for (const k of got.keys()) {
		if (!want.has(k))
			return `${k}: in the table, not in --list (${JSON.stringify(got.get(k))})`;
	}
	return null;
}

// --list rows keyed like the tables: tid:birth (a thread instance), or "0/<cpu>" for each CPU's
// idle task.
const instKey = (t) => `${t.tid}:${t.born_ns === null || t.born_ns === undefined ? 0 : t.born_ns}`;
function listKey(t) {
	if (t.tid !== 0)
		return instKey(t);
	const m = /^swapper\/(\d+)$/.exec(t.name);
	return m ? `0/${m[1]}` : '0';
}
const tableKey = "case when tid = 0 then '0/' || cpu else tid || ':' || born end";
const rowKey = "tid || ':' || born";

async function perCapture(c) {
	const { label, id, list } = c;
	const cap = list.capture;
	const tasks = list.tasks;
	const where = `trace_id = '${id}'`;
	const kinds = cap.has_switch_kind;

	// cpu_residency: runtime, switches, voluntary, involuntary per thread (the aggregates)
	let want = new Map(tasks.map((t) => [listKey(t), {
		runtime: t.runtime_ns, switches: t.switches, vol: t.voluntary, invol: t.involuntary,
	}]));
	let rows = await q(`select ${tableKey} k, sum(runtime_ns) runtime, sum(switches) switches,
		sum(voluntary) vol, sum(involuntary) invol from ${inst('cpu_residency')} where ${where}
		group by k`);
	let d = diff(want, new Map(rows.map((r) => [r.k, r])));
	check(!d, `${label}: cpu_residency per thread = --list runtime_ns, switches, (in)voluntary (${rows.length} threads)`, d);

	// per CPU as well
	const perCpu = new Map();
	for (const t of tasks) {
		for (const c of t.cpus)
			if (c.runtime_ns || c.switches)
				perCpu.set(`${listKey(t)}@${c.cpu}`, { runtime: c.runtime_ns, switches: c.switches });
	}
	rows = await q(`select ${tableKey} || '@' || cpu k, sum(runtime_ns) runtime, sum(switches) switches
		from ${inst('cpu_residency')} where ${where} and (runtime_ns > 0 or switches > 0) group by k`);
	d = diff(perCpu, new Map(rows.map((r) => [r.k, r])));
	check(!d, `${label}: cpu_residency per thread and CPU = --list cpus`, d);

	// cpu_residency's unseen time (user/lib/model.h R2) = --list unseen_ns
	want = new Map(tasks.filter((t) => t.unseen_ns).map((t) => [listKey(t), { ns: t.unseen_ns }]));
	rows = await q(`select ${tableKey} k, sum(unseen_ns) ns from ${inst('cpu_residency')}
		where ${where} and unseen_ns > 0 group by k`);
	d = diff(want, new Map(rows.map((r) => [r.k, r])));
	check(!d, `${label}: cpu_residency unseen_ns per thread = --list unseen_ns (${rows.length} threads)`, d);

	// sched_slice: the same sums from the slices (switches = slices that ended by a switch-out;
	// runtime = the slices whose switch-in was seen, unseen_start = 0). Every switch-out closes
	// a slice (model.h R2), so the slices count every switch-out.
	want = new Map(tasks.filter((t) => t.runtime_ns || t.switches).map((t) => [listKey(t), {
		runtime: t.runtime_ns, switches: t.switches, vol: t.voluntary, invol: t.involuntary,
	}]));
	const ended = cap.format === 'legacy' ? 'true' : 'end_state is not null';
	rows = await q(`select ${tableKey} k, coalesce(sum(dur) filter (where unseen_start = 0), 0) runtime,
		count(*) filter (where ${ended}) switches,
		${kinds ? "count(*) filter (where end_state is not null and end_state <> 'R')" : 'null'} vol,
		${kinds ? "count(*) filter (where end_state = 'R')" : 'null'} invol
		from ${inst('sched_slice')} where ${where} group by k`);
	d = diff(want, new Map(rows.map((r) => [r.k, r])));
	check(!d, `${label}: sched_slice per thread: sum(dur) of the seen slices, switch-outs, end_state R / the others = --list`, d);

	// end_state: the kernel's state letters (docs/fleet.md), R exactly for the preempted
	rows = await q(`select coalesce(end_state, 'null') st, count(*) n from ${glob('sched_slice')}
		where ${where} group by st order by st`);
	const letters = rows.map((r) => r.st);
	check(letters.every((l) => ['R', 'S', 'D', 'T', 't', 'X', 'Z', 'P', 'I', 'null'].includes(l)),
		`${label}: sched_slice.end_state letters are the documented ones (${rows.map((r) => `${r.st} ${r.n}`).join(', ')})`);

	// thread_state (waits) and the thread table's wait aggregates
	if (cap.has_wait) {
		want = new Map(tasks.filter((t) => t.wait_count).map((t) => [instKey(t), {
			n: t.wait_count, ns: t.wait_ns, max: t.wait_max_ns,
		}]));
		// --list has one idle row per CPU; waits of tid 0 do not happen
		rows = await q(`select ${rowKey} k, count(*) n, sum(dur) ns, max(dur) max
			from ${inst('thread_state')} where ${where} group by k`);
		d = diff(want, new Map(rows.map((r) => [r.k, r])));
		check(!d, `${label}: thread_state per thread: count, sum(dur), max(dur) = --list wait_count, wait_ns, wait_max_ns`, d);
		rows = await q(`select tid || ':' || coalesce(start_ts, 0) k, wait_count n, wait_ns ns,
			wait_max_ns max from ${glob('thread')} where ${where} and wait_count > 0`);
		d = diff(want, new Map(rows.map((r) => [r.k, r])));
		check(!d, `${label}: thread.wait_* = --list wait_*`, d);
	} else {
		rows = await q(`select count(*) n, count(wait_ns) w from ${glob('thread')} where ${where}`);
		const [r] = rows;
		const [st] = await q(`select count(*) n from ${glob('thread_state')} where ${where}`);
		check(r.w === '0' && st.n === '0' && Number(r.n) > 0,
			`${label}: no waits in the capture: thread.wait_* null, thread_state empty`, JSON.stringify([r, st]));
	}

	// thread.run_delay_*: the kernel's charge of the waits (model.h R9) = --list's where the
	// capture has it (a live capture), else null in every row (imports, legacy, synthetic)
	if (cap.has_run_delay) {
		want = new Map(tasks.filter((t) => t.tid && t.run_delay_ns !== null).map((t) => [instKey(t), {
			rd: t.run_delay_ns, rdw: t.run_delay_wait_ns, rdu: t.run_delay_unmeasured_ns,
		}]));
		rows = await q(`select tid || ':' || coalesce(start_ts, 0) k, run_delay_ns rd,
			run_delay_wait_ns rdw, run_delay_unmeasured_ns rdu from ${glob('thread')}
			where ${where} and tid <> 0 and utid in (select utid from ${glob('cpu_residency')}
				where ${where} union select utid from ${glob('thread_state')} where ${where})`);
		d = diff(want, new Map(rows.map((r) => [r.k, r])));
		const charged = tasks.filter((t) => t.tid && t.run_delay_ns > 0).length;
		check(!d && charged > 0, `${label}: thread.run_delay_ns, run_delay_wait_ns, run_delay_unmeasured_ns = --list's (${rows.length} threads, ${charged} with a charge)`,
			d || 'no thread with a charge');
	} else {
		const [r] = await q(`select count(*) n, count(run_delay_ns) a, count(run_delay_wait_ns) b,
			count(run_delay_unmeasured_ns) c from ${glob('thread')} where ${where}`);
		check(Number(r.n) > 0 && r.a === '0' && r.b === '0' && r.c === '0',
			`${label}: no kernel charge in the capture (has_run_delay false): thread.run_delay_* null in its ${r.n} rows`,
			JSON.stringify(r));
	}

	// thread: pid and name of every --list thread
	want = new Map(tasks.filter((t) => t.tid).map((t) => [instKey(t), { pid: t.pid, name: t.name }]));
	rows = await q(`select tid || ':' || coalesce(start_ts, 0) k, pid, name from ${glob('thread')}
		where ${where} and tid <> 0
		and utid in (select utid from ${glob('cpu_residency')} where ${where}
			union select utid from ${glob('kvm_exit')} where ${where}
			union select utid from ${glob('thread_state')} where ${where})`);
	d = diff(want, new Map(rows.map((r) => [r.k, r])));
	check(!d, `${label}: thread pid and name = --list pid and name`, d);

	// process: one row per process of the --list threads whose pid is known
	want = new Map(tasks.filter((t) => t.tid && t.pid).map((t) => [String(t.pid), {}]));
	rows = await q(`select pid::varchar k, count(*) over (partition by pid) n from ${glob('process')} where ${where}`);
	const dup = rows.filter((r) => r.n !== '1').length;
	d = diff(want, new Map(rows.filter((r) => want.has(r.k) ||
		!tasks.some((t) => String(t.pid) === r.k)).map((r) => [r.k, r])));
	check(!d && !dup, `${label}: process: one row per pid of --list (${want.size} processes)`, d || `${dup} duplicate pids`);

	// kvm_exit per (tid, isa, reason): count, handling time, name
	want = new Map();
	for (const t of tasks) {
		for (const e of t.kvm_exits)
			want.set(`${instKey(t)}/${e.isa}/${e.code}`, { cnt: e.count, tot: e.handling_ns, nm: e.name });
	}
	rows = await q(`select ${rowKey} || '/' || coalesce(isa, 'null') || '/' || reason k, count(*) cnt,
		coalesce(sum(dur), 0) tot, any_value(reason_name) nm from ${inst('kvm_exit')} where ${where}
		group by k`);
	d = diff(want, new Map(rows.map((r) => [r.k, r])));
	check(!d, `${label}: kvm_exit per thread and reason: count, sum(dur), reason_name = --list kvm_exits (${want.size} reasons)`, d);
	want = new Map(tasks.filter((t) => t.exits_total).map((t) => [instKey(t), { n: t.exits_total }]));
	rows = await q(`select ${rowKey} k, count(*) n from ${inst('kvm_exit')} where ${where} group by k`);
	d = diff(want, new Map(rows.map((r) => [r.k, r])));
	check(!d, `${label}: kvm_exit count per thread = --list exits_total`, d);

	// kvm_exit on/off-CPU split: on + sleep + ready = dur for every exit that has it; all three
	// null together, and null where dur is (no kvm_entry followed)
	const [sp] = await q(`select count(*) n, count(on_cpu_ns) known,
		count(*) filter (where on_cpu_ns + off_cpu_sleep_ns + off_cpu_ready_ns <> dur) bad,
		count(*) filter (where (on_cpu_ns is null) <> (off_cpu_sleep_ns is null)
			or (on_cpu_ns is null) <> (off_cpu_ready_ns is null)) mixed,
		count(*) filter (where dur is null and on_cpu_ns is not null) nodur,
		count(*) filter (where on_cpu_ns < 0 or off_cpu_sleep_ns < 0 or off_cpu_ready_ns < 0) neg
		from ${glob('kvm_exit')} where ${where}`);
	const streamExits = (list.vms || []).some((vm) => vm.vcpus.some((vc) => vc.exits.some((e) => e.paired > 0 && e.on_cpu_ns !== null)));
	check(sp.bad === '0' && sp.mixed === '0' && sp.nodur === '0' && sp.neg === '0' && (!streamExits || Number(sp.known) > 0),
		`${label}: kvm_exit: on_cpu_ns + off_cpu_sleep_ns + off_cpu_ready_ns = dur for each of the ${sp.known} exits with a split (of ${sp.n})`,
		JSON.stringify(sp));
	// ... and per vCPU and reason their sums are --list vms' split (user/lib/vms.h, one rule)
	want = new Map();
	for (const vm of list.vms || [])
		for (const vc of vm.vcpus)
			for (const e of vc.exits)
				want.set(`${vc.tid}/${e.isa}/${e.code}`, { paired: e.paired, on: e.on_cpu_ns,
					sleep: e.off_sleep_ns, ready: e.off_ready_ns });
	rows = await q(`select e.tid || '/' || coalesce(e.isa, 'null') || '/' || e.reason k, count(e.dur) paired,
		case when count(e.dur) = 0 then 0 else sum(e.on_cpu_ns) end "on",
		case when count(e.dur) = 0 then 0 else sum(e.off_cpu_sleep_ns) end sleep,
		case when count(e.dur) = 0 then 0 else sum(e.off_cpu_ready_ns) end ready
		from ${glob('kvm_exit')} e where e.${where}
		and e.utid in (select utid from ${glob('vcpu')} where ${where}) group by k`);
	d = diff(want, new Map(rows.map((r) => [r.k, r])));
	check(!d, `${label}: kvm_exit split per vCPU and reason: sum(on_cpu_ns), sum(off_cpu_sleep_ns), sum(off_cpu_ready_ns) = --list vms (${want.size} reasons)`, d);
	if (hand[label]) {
		rows = await q(`select ts, dur, reason_name, on_cpu_ns "on", off_cpu_ready_ns ready,
			off_cpu_sleep_ns sleep from ${glob('kvm_exit')} where ${where} order by ts`);
		const got = rows.map((r) => [r.ts, r.dur, r.reason_name, r.on, r.ready, r.sleep].map(s).join(' '));
		const exp = hand[label].map((r) => r.map(s).join(' '));
		check(JSON.stringify(got) === JSON.stringify(exp),
			`${label}: the hand-checked exits (ts dur reason on ready sleep): ${exp.join('; ')}`,
			`got ${got.join('; ')}`);
	}

	// vcpu: one row per vCPU of --list's vms, with its figures (the whole capture's)
	want = new Map();
	for (const vm of list.vms || [])
		for (const vc of vm.vcpus)
			want.set(`${vc.tid}`, { vm: vm.name, running: vc.running_ns, ready: vc.ready_ns,
				sleep: vc.sleep_ns, unseen: vc.unseen_ns, waits: vc.waits, exits: vc.exits_total,
				uncharged: vc.uncharged_ns, win: cap.window_end_ns - cap.window_start_ns,
				alive: vc.alive_ns });
	rows = await q(`select tid::varchar k, vm, running_ns running, ready_ns ready, sleep_ns sleep,
		unseen_ns unseen, waits, exits, uncharged_ns uncharged, window_ns win, alive_ns alive
		from ${glob('vcpu')} where ${where}`);
	d = diff(want, new Map(rows.map((r) => [r.k, r])));
	check(!d && rows.length === want.size, `${label}: vcpu: one row per vCPU of --list vms, alive/running/ready/sleep/exits equal (${want.size} vCPUs)`, d || `${rows.length} rows`);

	// vcpu_state: one row per vCPU and state of its ledger (model.h R10), ns and count those of
	// --list's states; the states of a vCPU add up to its ledger_alive_ns
	want = new Map();
	const ledgers = new Map();
	for (const vm of list.vms || [])
		for (const vc of vm.vcpus.filter((x) => x.states)) {
			ledgers.set(`${vc.tid}`, { n: 8, sum: vc.ledger_alive_ns });	// enum pwz_vcpu_state
			for (const [st, v] of Object.entries(vc.states))
				want.set(`${vc.tid}/${st}`, { vm: vm.name, vcpu: vc.vcpu, name: vc.name, ns: v.ns,
					count: v.count, alive: vc.ledger_alive_ns });
		}
	rows = await q(`select tid || '/' || state k, vm, vcpu, name, ns, count, alive_ns alive
		from ${glob('vcpu_state')} where ${where}`);
	d = diff(want, new Map(rows.map((r) => [r.k, r])));
	check(!d && rows.length === want.size, `${label}: vcpu_state: one row per vCPU and state of --list vms' ledgers, ns and count equal (${ledgers.size} vCPUs, ${want.size} rows)`,
		d || `${rows.length} rows`);
	rows = await q(`select tid::varchar k, count(*) n, sum(ns) sum from ${glob('vcpu_state')}
		where ${where} group by k`);
	d = diff(ledgers, new Map(rows.map((r) => [r.k, r])));
	check(!d, `${label}: vcpu_state: 8 rows per vCPU with a ledger, sum(ns) = its ledger_alive_ns (${ledgers.size} vCPUs)`, d);
	// the vCPU index (the export reads no streams: it has it from the ledger): each state row's
	// is its vcpu row's
	rows = await q(`select s.tid, s.vcpu, v.vcpu vv from ${glob('vcpu_state')} s
		join ${glob('vcpu')} v on s.tid = v.tid and s.trace_id = v.trace_id where ${where.replace(/\btrace_id\b/g, 's.trace_id')}
		and s.vcpu is distinct from v.vcpu`);
	check(!rows.length, `${label}: vcpu_state: each row's vcpu index is its vcpu row's`,
		rows.slice(0, 3).map((x) => `${x.tid}: ${s(x.vcpu)} vs ${s(x.vv)}`).join(', '));

	// capture: one row, its figures
	rows = await q(`select * from ${glob('capture')} where ${where}`);
	const r = rows[0] || {};
	const wantCap = {
		host: cap.host, kernel: cap.kernel, nr_cpus: cap.nr_cpus, start_wall_ns: cap.start_wall_ns,
		dur: cap.duration_ns, drops: cap.drops_total, source: cap.source, format: cap.format,
		cut: cap.cut ? 1 : 0, boot_id: cap.boot_id, steal_ns: cap.steal_ns,
		steal_cpu_time_ns: cap.steal_cpu_time_ns,
	};
	const bad = Object.keys(wantCap).filter((k) => s(wantCap[k]) !== s(r[k]));
	check(rows.length === 1 && !bad.length, `${label}: capture row = --list capture (host ${cap.host}, ${cap.nr_cpus} CPUs, ${cap.duration_ns} ns)`,
		`${rows.length} rows; ${bad.map((k) => `${k}: ${s(r[k])} vs ${s(wantCap[k])}`).join(', ')}`);

	// every row of every table carries this trace_id and the capture's host
	const tables = ['sched_slice', 'thread_state', 'thread', 'process', 'kvm_exit', 'cpu_residency', 'capture',
		'vcpu', 'vcpu_state'];
	let wrong = [];
	for (const t of tables) {
		const [x] = await q(`select count(*) n, count(*) filter (where host is not distinct from
			${cap.host === null ? 'null' : `'${cap.host.replace(/'/g, "''")}'`}) h
			from read_parquet('${fleet}/${t}/${id}.parquet')`);
		const [y] = await q(`select count(*) n from ${glob(t)} where ${where}`);
		if (x.n !== x.h || x.n !== y.n)
			wrong.push(`${t}: ${x.n} rows, ${x.h} with the host, ${y.n} with the trace_id`);
	}
	check(!wrong.length, `${label}: every row of the 9 files has trace_id ${id} and host ${cap.host}`, wrong.join('; '));
}

// docs/fleet.md: "### <table>" then "| column | type | null | ... |" rows.
function docSchemas() {
	const out = new Map();
	let cur = null;
	for (const line of fs.readFileSync(docsPath, 'utf8').split('\n')) {
		const h = /^### `?([a-z_]+)`?\s*$/.exec(line);
		if (h) {
			cur = h[1];
			out.set(cur, []);
			continue;
		}
		const m = /^\| `([a-z_]+)` \| (UINT32|UINT64|STRING) \| ([^|]+) \|/.exec(line);
		if (cur && m)
			out.get(cur).push({ name: m[1], type: m[2], nullable: m[3].trim() !== 'no' });
	}
	return out;
}

async function schemas() {
	const docs = docSchemas();
	// the physical type, its ConvertedType and LogicalType, and what DuckDB reads
	const phys = { UINT32: 'INT32', UINT64: 'INT64', STRING: 'BYTE_ARRAY' };
	const conv = { UINT32: 'UINT_32', UINT64: 'UINT_64', STRING: 'UTF8' };
	const logical = { UINT32: /^IntType\(.*isSigned=0\)$/, UINT64: /^IntType\(.*isSigned=0\)$/,
		STRING: /^StringType\(\)$/ };
	const duck = { UINT32: 'UINTEGER', UINT64: 'UBIGINT', STRING: 'VARCHAR' };
	check(docs.size === 9, `docs/fleet.md documents 9 tables (${[...docs.keys()].join(', ')})`);
	for (const [table, cols] of docs) {
		const file = `${fleet}/${table}/${caps[0].id}.parquet`;
		const rows = await q(`select name, type, repetition_type rep, converted_type conv,
			logical_type lt, duckdb_type dt from parquet_schema('${file}') where name <> 'schema'`);
		const byName = new Map(cols.map((c) => [c.name, c]));
		const got = rows.map((r) => `${r.name} ${r.type}/${r.conv} ${r.rep} ${r.dt}` +
			(byName.has(r.name) && !logical[byName.get(r.name).type].test(r.lt) ? ` logical ${r.lt}` : ''));
		const want = cols.map((c) => `${c.name} ${phys[c.type]}/${conv[c.type]} ${c.nullable ? 'OPTIONAL' : 'REQUIRED'} ${duck[c.type]}`);
		check(got.join(',') === want.join(','), `${table}: columns, types and nullability as docs/fleet.md says (${cols.length} columns)`,
			`file: ${got.join(', ')}; docs: ${want.join(', ')}`);
	}
}

async function folder() {
	// several captures in one folder read as one table
	const ids = caps.map((c) => c.id).sort();
	const rows = await q(`select distinct trace_id from ${glob('sched_slice')} order by 1`);
	const got = rows.map((r) => r.trace_id);
	const withSlices = caps.filter((c) => c.list.tasks.some((t) => t.runtime_ns)).map((c) => c.id).sort();
	check(got.join() === withSlices.join(), `sched_slice/*.parquet reads as one table of ${got.length} captures`,
		`${got.join()} vs ${withSlices.join()}`);
	const [cap] = await q(`select count(*) n, count(distinct trace_id) d from ${glob('capture')}`);
	check(cap.n === String(ids.length) && cap.d === String(ids.length),
		`capture/*.parquet: one row per capture, trace_ids unique (${cap.n})`);
	// a fleet question: runtime per host through a join, against the lists
	const want = new Map();
	for (const c of caps) {
		const h = c.list.capture.host === null ? '(null)' : c.list.capture.host;
		const w = want.get(h) || { runtime: 0n, switches: 0n };
		for (const t of c.list.tasks) {
			w.runtime += BigInt(t.runtime_ns);
			w.switches += BigInt(t.switches);
		}
		want.set(h, w);
	}
	const per = await q(`select coalesce(c.host, '(null)') k, sum(r.runtime_ns) runtime, sum(r.switches) switches
		from ${glob('cpu_residency')} r join ${glob('capture')} c using (trace_id) group by k`);
	let d = diff(want, new Map(per.map((r) => [r.k, r])));
	check(!d, `fleet query: runtime and switches per host (join on trace_id) = the sum of the --list files (${per.length} hosts)`, d);

	// a per-VM question: CPU time and exits of each VM's vCPU threads (vm.vcpuN), per host
	const vms = new Map();
	for (const c of caps) {
		const h = c.list.capture.host === null ? '(null)' : c.list.capture.host;
		for (const t of c.list.tasks) {
			const m = /^(.+)\.vcpu\d+$/.exec(t.name);
			if (!m || !t.tid)
				continue;
			const k = `${h}/${m[1]}`;
			const w = vms.get(k) || { runtime: 0n, exits: 0n, vcpus: 0 };
			w.runtime += BigInt(t.runtime_ns);
			w.exits += BigInt(t.exits_total);
			w.vcpus++;
			vms.set(k, w);
		}
	}
	const vmRows = await q(`with v as (select trace_id, utid, regexp_extract(name, '^(.+)\\.vcpu[0-9]+$', 1) vm
			from ${glob('thread')} where regexp_matches(name, '^.+\\.vcpu[0-9]+$') and tid <> 0)
		select coalesce(c.host, '(null)') || '/' || v.vm k,
			(select sum(runtime_ns) from ${glob('cpu_residency')} r
				where r.trace_id = v.trace_id and r.utid = v.utid) runtime,
			(select count(*) from ${glob('kvm_exit')} e where e.trace_id = v.trace_id and e.utid = v.utid) exits,
			c.trace_id
		from v join ${glob('capture')} c using (trace_id)`);
	const sums = new Map();
	for (const r of vmRows) {
		const w = sums.get(r.k) || { runtime: 0n, exits: 0n, vcpus: 0 };
		w.runtime += BigInt(r.runtime || 0);
		w.exits += BigInt(r.exits);
		w.vcpus++;
		sums.set(r.k, w);
	}
	d = diff(vms, sums);
	check(!d && vms.size > 0, `fleet query: CPU time and KVM exits per VM and host (thread names vm.vcpuN) = --list (${vms.size} VMs)`, d || 'no VM');
}

// The docs' DuckDB examples run on this tree (their 'fleet/' is FLEET_DIR).
async function docQueries() {
	const md = fs.readFileSync(docsPath, 'utf8');
	const part = md.slice(md.indexOf('## With DuckDB'), md.indexOf('## With Spark'));
	const sql = (/```sql\n([\s\S]*?)```/.exec(part) || [])[1] || '';
	const queries = sql.split(/;\s*\n/).map((x) => x.split('\n').filter((l) => !/^\s*--/.test(l)).join('\n').trim())
		.filter((x) => x);
	const counts = [];
	for (const text of queries) {
		try {
			counts.push((await q(text.replace(/;$/, '').replaceAll("'fleet/", `'${fleet}/`))).length);
		} catch (e) {
			ko(`docs/fleet.md query fails: ${e.message.split('\n')[0]}: ${text.split('\n')[0]}`);
			return;
		}
	}
	check(queries.length >= 3 && counts.every((n) => n > 0),
		`docs/fleet.md: its ${queries.length} DuckDB queries run on the tree (rows: ${counts.join(', ')})`);
}

(async () => {
	const db = await DuckDBInstance.create(':memory:');
	conn = await db.connect();
	try {
		for (const c of caps)
			await perCapture(c);
		await schemas();
		await folder();
		await docQueries();
	} catch (e) {
		ko(`DuckDB: ${e.message}`);
	}
})();
