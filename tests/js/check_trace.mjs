#!/usr/bin/env node
// check_trace.mjs <trace.json> <expect.json>
//
// Loads a Chrome trace (Kineto layout: {"traceEvents": [...], ...} or a bare
// event array) with Chrome DevTools' own trace engine (@paulirish/trace_engine,
// TraceModel.Model.createWithAllHandlers(), the same model the Performance
// panel builds) and compares what it found with an expectations file:
//
// {
//   "threads": {                        // keyed by tid, or "pid:tid" if a tid is in several pids
//     "1235": {
//       "name": "main",                 // optional: thread_name metadata as the engine read it
//       "scopes": {"step": 3, "matmul": 3},   // complete events (X, or B/E pairs) in the
//                                       // engine's call tree: name -> count. Exact: names not
//                                       // listed must not appear.
//       "parents": {"step": null, "matmul": "step"},  // optional: name -> enclosing scope name
//                                       // (null = top level); an array when a name occurs under
//                                       // several parents. Names not listed are not checked.
//       "instants": {"marker": 1}       // optional: instant events the engine kept (ph "I")
//     }
//   },
//   "async": {"txn": 2},                // optional: async ranges ("b"/"e" pairs) the engine
//                                       // kept as measures of its Timings track: name -> count.
//                                       // Exact: names not listed must not appear.
//   "processes": {"1234": "python"},    // optional: process_name metadata, pid -> name
//   "exact_threads": true,              // optional (default true): no thread beyond those listed
//   "speedscope": {...}                 // optional, ignored here: check_speedscope.mjs's expectations
//                                       // for this same trace (see that file)
// }
// Strings are compared exactly after JSON decoding (escapes, control characters, UTF-8).
//
// Independently of the expectations it fails when the engine left an async range of
// cat "blink.user_timing" (prof.h's PROF_ASYNC_BEGIN/END) out of its measures, or
// when it left a complete event
// out of its tree (DevTools does not draw those: typically a child that ends after
// its parent, even by one floating-point ulp of ts+dur), and it prints a note for
// every event kind the engine ignores (e.g. Kineto's lowercase "i" instants).
// Exit status: 0 all matched, 1 mismatch, 2 usage or load error.

import fs from 'node:fs';
import zlib from 'node:zlib';

// trace_engine 0.0.65 calls URL.parse (Node >= 20.18 / 22.1); Debian 12 ships Node 18.
if (typeof URL.parse !== 'function') {
  URL.parse = (url, base) => {
    try {
      return new URL(url, base);
    } catch {
      return null;
    }
  };
}

const [tracePath, expectPath] = process.argv.slice(2);
if (!tracePath || !expectPath) {
  console.error('usage: node check_trace.mjs <trace.json> <expect.json>');
  process.exit(2);
}

// The engine needs window.DOMRect; the package ships this polyfill for Node.
const {polyfillDOMRect} = await import('@paulirish/trace_engine/analyze-trace.mjs');
const Trace = await import('@paulirish/trace_engine');
polyfillDOMRect();

function readJson(path) {
  let buf = fs.readFileSync(path);
  if (buf.length > 2 && buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
  return JSON.parse(buf.toString('utf8'));
}

let raw, expect;
try {
  raw = readJson(tracePath);
  expect = readJson(expectPath);
} catch (e) {
  console.error(`check_trace: cannot read input: ${e.message}`);
  process.exit(2);
}
const rawEvents = Array.isArray(raw) ? raw : raw.traceEvents;
if (!Array.isArray(rawEvents)) {
  console.error(`check_trace: ${tracePath}: no traceEvents array`);
  process.exit(2);
}
// The engine keeps references to (and sorts) the events it gets: give it its own copy.
const events = structuredClone(rawEvents);

const model = Trace.TraceModel.Model.createWithAllHandlers();
try {
  await model.parse(events);
} catch (e) {
  console.error(`FAIL ${tracePath}: trace engine threw while parsing: ${e.stack || e}`);
  process.exit(1);
}
const parsed = model.parsedTrace();
const data = parsed?.data ?? parsed; // 0.0.65: {data, insights, ...}; older: the data itself
if (!data?.Renderer || !data?.Meta) {
  console.error(`FAIL ${tracePath}: trace engine produced no Renderer/Meta data`);
  process.exit(1);
}

const errors = [];
const notes = [];
const fail = (msg) => errors.push(msg);
const show = (s) => JSON.stringify(s);

if (!data.Meta.traceIsGeneric) {
  notes.push('engine treats this as a Chrome browser trace (saw TracingStartedInBrowser/TracingStartedInPage/' +
    'TracingSessionIdForWorker/CpuProfile): it then drops every process without a page URL');
}

// What the engine found: per (pid, tid) the nodes of its call tree.
const found = new Map(); // "pid:tid" -> {pid, tid, name, scopes: Map, parents: Map<name, Set>, instants: Map}
for (const [pid, proc] of data.Renderer.processes) {
  for (const [tid, thread] of proc.threads) {
    const t = {pid, tid, name: thread.name, scopes: new Map(), parents: new Map(), instants: new Map(), kept: new Set()};
    for (const entry of thread.entries) {
      const node = data.Renderer.entryToNode.get(entry);
      if (!node) continue;
      t.kept.add(entry);
      if (entry.ph === 'I' || entry.ph === 'i' || entry.ph === 'R' || entry.ph === 'n') {
        t.instants.set(entry.name, (t.instants.get(entry.name) ?? 0) + 1);
        continue;
      }
      t.scopes.set(entry.name, (t.scopes.get(entry.name) ?? 0) + 1);
      const parent = node.parent ? node.parent.entry.name : null;
      if (!t.parents.has(entry.name)) t.parents.set(entry.name, new Set());
      t.parents.get(entry.name).add(parent);
    }
    found.set(`${pid}:${tid}`, t);
  }
}

// Raw events the engine did not put in any tree.
const rawByThread = new Map();
for (const ev of rawEvents) {
  if (!ev || typeof ev !== 'object') {
    fail(`trace has a non-object event: ${show(ev)}`);
    continue;
  }
  if (ev.ph === 'M') continue;
  const key = `${ev.pid}:${ev.tid}`;
  if (!rawByThread.has(key)) rawByThread.set(key, {complete: [], other: new Map()});
  const r = rawByThread.get(key);
  if (ev.ph === 'X' || ev.ph === 'B') r.complete.push(ev);
  else if (ev.ph !== 'E') r.other.set(ev.ph, (r.other.get(ev.ph) ?? 0) + 1);
}
for (const [key, r] of rawByThread) {
  const t = found.get(key);
  const keptComplete = t ? [...t.scopes.values()].reduce((a, b) => a + b, 0) : 0;
  if (keptComplete < r.complete.length) {
    // Name which ones: multiset difference on (name, ts).
    const keptKeys = new Map();
    for (const e of t?.kept ?? []) keptKeys.set(`${e.name}\u0000${e.ts}`, (keptKeys.get(`${e.name}\u0000${e.ts}`) ?? 0) + 1);
    const dropped = r.complete.filter(e => {
      const k = `${e.name}\u0000${e.ts}`;
      if (!keptKeys.get(k)) return true;
      keptKeys.set(k, keptKeys.get(k) - 1);
      return false;
    });
    fail(`thread ${key}: trace engine left ${r.complete.length - keptComplete} of ${r.complete.length} ` +
      `complete events out of its call tree (DevTools will not draw them; a child that ends after its ` +
      `parent, unbalanced B/E, or a thread dropped as non-generic): ` +
      dropped.slice(0, 5).map(e => `${show(e.name)} ts=${e.ts} dur=${e.dur}`).join(', ') +
      (dropped.length > 5 ? ', ...' : ''));
  }
  for (const [ph, n] of r.other) {
    const keptInst = t ? [...t.instants.values()].reduce((a, b) => a + b, 0) : 0;
    if (ph === 'i' || ph === 'I') {
      if (keptInst < n) notes.push(`thread ${key}: ${n - keptInst} of ${n} ph "${ph}" instant events not kept by the trace engine` +
        (ph === 'i' ? ' (it only knows ph "I")' : ''));
    } else {
      notes.push(`thread ${key}: ${n} ph "${ph}" events (not part of the call tree)`);
    }
  }
}

// Compare with expectations.
function lookupThread(key) {
  if (key.includes(':')) return found.get(key);
  const matches = [...found.values()].filter(t => String(t.tid) === key);
  if (matches.length > 1) {
    fail(`thread key ${show(key)} is ambiguous (pids ${matches.map(t => t.pid).join(', ')}): use "pid:tid"`);
  }
  return matches[0];
}
function sameParents(expected, got) {
  const exp = new Set(Array.isArray(expected) ? expected : [expected]);
  return exp.size === got.size && [...exp].every(p => got.has(p));
}

const expThreads = expect.threads ?? {};
const matched = new Set();
for (const [key, exp] of Object.entries(expThreads)) {
  const t = lookupThread(key);
  if (!t) {
    fail(`thread ${key}: not found by the trace engine (found: ${[...found.keys()].join(', ') || 'none'})`);
    continue;
  }
  matched.add(`${t.pid}:${t.tid}`);
  const where = `thread ${key} (${show(t.name)})`;
  if ('name' in exp && t.name !== exp.name) fail(`${where}: name is ${show(t.name)}, expected ${show(exp.name)}`);
  if (exp.scopes) {
    for (const [name, n] of Object.entries(exp.scopes)) {
      const got = t.scopes.get(name) ?? 0;
      if (got !== n) fail(`${where}: scope ${show(name)} appears ${got} times, expected ${n}`);
    }
    for (const [name, n] of t.scopes) {
      if (!(name in exp.scopes)) fail(`${where}: unexpected scope ${show(name)} (${n} times)`);
    }
  }
  for (const [name, parent] of Object.entries(exp.parents ?? {})) {
    const got = t.parents.get(name);
    if (!got) {
      fail(`${where}: no scope ${show(name)} to check the parent of`);
    } else if (!sameParents(parent, got)) {
      fail(`${where}: parent of ${show(name)} is ${show([...got])}, expected ${show(parent)}`);
    }
  }
  if (exp.instants) {
    for (const [name, n] of Object.entries(exp.instants)) {
      const got = t.instants.get(name) ?? 0;
      if (got !== n) fail(`${where}: instant ${show(name)} kept ${got} times, expected ${n}`);
    }
    for (const [name, n] of t.instants) {
      if (!(name in exp.instants)) fail(`${where}: unexpected instant ${show(name)} (${n} times)`);
    }
  }
}
if (expect.exact_threads !== false) {
  for (const [key, t] of found) {
    if (!matched.has(key)) fail(`unexpected thread ${key} (${show(t.name)}) with scopes ${show(Object.fromEntries(t.scopes))}`);
  }
}
for (const [pid, name] of Object.entries(expect.processes ?? {})) {
  const ev = [...data.Meta.processNames].find(([p]) => String(p) === pid)?.[1];
  const got = ev?.args?.name;
  if (got !== name) fail(`process ${pid}: name is ${show(got)}, expected ${show(name)}`);
}

// Async ranges: each "b" of cat blink.user_timing is a measure the engine pairs with
// its "e" (same cat, id, name) and draws on the Timings track, at the "b"'s ts.
{
  const measures = data.UserTimings?.performanceMeasures ?? [];
  const kept = new Map();
  for (const m of measures) {
    const k = `${m.name}\u0000${m.ts}`;
    kept.set(k, (kept.get(k) ?? 0) + 1);
  }
  const counts = new Map();
  for (const ev of rawEvents) {
    if (!ev || ev.ph !== 'b' || ev.cat !== 'blink.user_timing') continue;
    const k = `${ev.name}\u0000${ev.ts}`;
    if (!kept.get(k)) fail(`async range ${show(ev.name)} ts=${ev.ts} id=${show(ev.id)}: not among the engine's measures (Timings track)`);
    else kept.set(k, kept.get(k) - 1);
  }
  for (const m of measures) counts.set(m.name, (counts.get(m.name) ?? 0) + 1);
  if (expect.async) {
    for (const [name, n] of Object.entries(expect.async)) {
      const got = counts.get(name) ?? 0;
      if (got !== n) fail(`async range ${show(name)} kept ${got} times, expected ${n}`);
    }
    for (const [name, n] of counts) {
      if (!(name in expect.async)) fail(`unexpected async range ${show(name)} (${n} times)`);
    }
  }
}

for (const n of notes) console.log(`note: ${n}`);
if (errors.length) {
  for (const e of errors) console.log(`FAIL ${tracePath}: ${e}`);
  console.log(`check_trace: ${errors.length} mismatch(es) in ${tracePath}`);
  process.exit(1);
}
const nScopes = [...found.values()].reduce((a, t) => a + [...t.scopes.values()].reduce((x, y) => x + y, 0), 0);
console.log(`ok ${tracePath}: trace engine found ${found.size} thread(s), ${nScopes} scope(s), as expected`);
