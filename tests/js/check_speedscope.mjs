#!/usr/bin/env node
// check_speedscope.mjs <file> <expect.json>
//
// Imports <file> with speedscope's own importers, exactly as the speedscope app
// does for a dropped file (importProfilesFromArrayBuffer(fileName, bytes): format
// detection by name and content, then the matching importer, then demangle()).
// Works for folded stacks ("a;b;c 123" lines -> "collapsed stack format") and for
// Chrome trace JSON ({"traceEvents": [...]} -> "Trace Event Format profile").
//
// Expectations file:
// {
//   "importer": "collapsed stack format", // optional: the format speedscope detected (its
//                                         // "Importing as ..." log line, minus that prefix)
//   "profiles": 1,                        // optional: number of profiles (a trace gives one per thread)
//   "frames": ["step", "matmul"],         // exact set of distinct frame names over all profiles
//   "total": 1234,                        // sum over profiles of profile.getTotalWeight():
//                                         // folded stacks: sum of the counts; trace: per thread,
//                                         // last end - first start (µs), idle gaps included
//   "self": {"matmul": 30},               // optional: name -> self weight (summed over frames of that name)
//   "inclusive": {"step": 40},            // optional: name -> total weight of the frame(s) of that name
//   "tolerance": 0.001,                   // optional: absolute tolerance on weights (default 1e-6)
//   "allow_warnings": false,              // optional: speedscope importer warnings (unbalanced or
//                                         // badly nested events) fail the check unless true
//   "merged": true                        // optional: each name is one speedscope frame (its
//                                         // sandwich view merges the calls), not one per args
// }
// <expect.json> may also be a check_trace.mjs expectations file (it has "threads"): its
// "speedscope" member, an object as above, is used; without one, the frame names and
// the profile count are derived from its threads' scopes and weights are not checked.
// For trace JSON, speedscope names a frame `${name} ${JSON.stringify(args)}`; the
// checker strips that args suffix before comparing names (full names are printed
// on mismatch).
// Exit status: 0 all matched, 1 mismatch, 2 usage or load error.
//
// The speedscope npm package ships only its browser bundle; its importers are not
// exported. We run that bundle, unmodified except for one inserted statement that
// hands out the importer module and stops the app from booting, inside a node:vm
// context with the few browser globals the bundle touches at load time.

import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import {createRequire} from 'node:module';

const [filePath, expectPath] = process.argv.slice(2);
if (!filePath || !expectPath) {
  console.error('usage: node check_speedscope.mjs <folded-stacks-or-trace.json> <expect.json>');
  process.exit(2);
}

let bytes, expect;
try {
  bytes = fs.readFileSync(filePath);
  expect = JSON.parse(fs.readFileSync(expectPath, 'utf8'));
} catch (e) {
  console.error(`check_speedscope: cannot read input: ${e.message}`);
  process.exit(2);
}
let derivedNote = null;
if (expect.threads && typeof expect.threads === 'object') {
  // A check_trace.mjs expectations file: use its "speedscope" member, else derive
  // the frame names and the profile count (one per thread) from its threads.
  if (expect.speedscope) {
    expect = expect.speedscope;
  } else {
    const threads = Object.values(expect.threads).filter(t => t.scopes && Object.keys(t.scopes).length);
    expect = {
      profiles: threads.length,
      frames: [...new Set(threads.flatMap(t => Object.keys(t.scopes)))],
    };
    derivedNote = 'expectations derived from the trace expectations (frame names, profile count); weights not checked';
  }
}

async function loadSpeedscopeImporters() {
  const require = createRequire(import.meta.url);
  const pkgDir = path.dirname(require.resolve('speedscope/package.json'));
  const version = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
  const relDir = path.join(pkgDir, 'dist', 'release');
  const bundleName = fs.readdirSync(relDir).find(n => /^speedscope-[\w-]+\.js$/.test(n));
  if (!bundleName) throw new Error(`no speedscope-*.js bundle in ${relDir}`);
  const src = fs.readFileSync(path.join(relDir, bundleName), 'utf8');
  // The app's lazy wrapper: async function Ff(t,e){return(await jr).importProfileGroupFromText(t,e)}
  // where jr is the promise of the import module (importProfilesFromArrayBuffer, ...).
  const hook = /async function [\w$]+\(([\w$]+),([\w$]+)\)\{return\(await ([\w$]+)\)\.importProfileGroupFromText\(\1,\2\)\}/.exec(src);
  if (!hook) throw new Error(`speedscope ${version}: importer hook not found in ${bundleName} (bundle layout changed?)`);
  const at = hook.index + hook[0].length;
  const STOP = '__prof_h_speedscope_hook__';
  const patched = `${src.slice(0, at)};globalThis.__speedscopeImport=${hook[3]};throw new Error(${JSON.stringify(STOP)});${src.slice(at)}`;

  const logs = [];
  const capture = (level) => (...args) => logs.push({level, text: args.map(a => (typeof a === 'string' ? a : String(a))).join(' ')});
  const nop = () => {};
  const ctx = {
    console: {log: capture('log'), info: capture('log'), warn: capture('warn'), error: capture('error'), debug: nop,
      time: nop, timeEnd: nop, group: nop, groupCollapsed: nop, groupEnd: nop, assert: (c, ...a) => { if (!c) capture('error')(...a); }},
    location: {hash: '', href: 'file:///speedscope/index.html', protocol: 'file:', search: '', origin: 'null'},
    navigator: {userAgent: 'node', platform: 'Linux', language: 'en-US'},
    TextDecoder, TextEncoder, URL, setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask,
    atob, btoa, performance,
  };
  ctx.window = ctx;
  ctx.self = ctx;
  ctx.globalThis = ctx;
  vm.createContext(ctx);
  try {
    vm.runInContext(patched, ctx, {filename: bundleName});
  } catch (e) {
    if (!(e && e.message === STOP)) throw new Error(`speedscope ${version} bundle failed to load: ${e && e.message}`);
  }
  if (!ctx.__speedscopeImport) throw new Error(`speedscope ${version}: importer hook did not run`);
  const mod = await ctx.__speedscopeImport;
  if (typeof mod?.importProfilesFromArrayBuffer !== 'function') {
    throw new Error(`speedscope ${version}: import module has no importProfilesFromArrayBuffer`);
  }
  const newArrayBuffer = vm.runInContext('(n) => new ArrayBuffer(n)', ctx);
  return {mod, logs, version, newArrayBuffer};
}

let ss;
try {
  ss = await loadSpeedscopeImporters();
} catch (e) {
  console.error(`check_speedscope: ${e.message}`);
  process.exit(2);
}

const errors = [];
const notes = derivedNote ? [derivedNote] : [];
const fail = (m) => errors.push(m);
const show = (s) => JSON.stringify(s);

// Folded stacks: speedscope matches each '\n'-separated line with /^(.*) (\d+)$/m and
// silently skips lines that do not match.
const text = bytes.toString('utf8');
let isJson = false;
try {
  JSON.parse(text);
  isJson = true;
} catch {}
if (!isJson) {
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line === '' && i === lines.length - 1) return;
    const m = /^(.*) (\d+)$/m.exec(line);
    if (!m) fail(`line ${i + 1} is not "frame;frame count" (speedscope skips it): ${show(line)}`);
    else if (m[1].split(';').includes('')) fail(`line ${i + 1} has an empty frame name: ${show(line)}`);
  });
  if (text.includes('\r')) notes.push('file has CR characters (speedscope tolerates CRLF line ends)');
}

const ab = ss.newArrayBuffer(bytes.length);
new Uint8Array(ab).set(bytes);
let group;
try {
  group = await ss.mod.importProfilesFromArrayBuffer(path.basename(filePath), ab);
  if (group) for (const p of group.profiles) await p.demangle();
} catch (e) {
  console.log(`FAIL ${filePath}: speedscope importer threw: ${e && e.stack || e}`);
  process.exit(1);
}
const importedAs = ss.logs.filter(l => l.level === 'log' && l.text.startsWith('Importing ')).map(l => l.text.replace(/^Importing (as|from) /, ''));
const warnings = ss.logs.filter(l => l.level !== 'log');
if (!group) {
  console.log(`FAIL ${filePath}: speedscope ${ss.version} did not recognize the format ("Unrecognized format!" in the app)`);
  process.exit(1);
}
if (group.profiles.length === 0) fail('speedscope imported it but the profile is empty');

if (expect.importer !== undefined && !importedAs.includes(expect.importer)) {
  fail(`speedscope imported it as ${show(importedAs.join(', '))}, expected ${show(expect.importer)}`);
}
if (warnings.length && !expect.allow_warnings) {
  for (const w of warnings.slice(0, 10)) fail(`speedscope importer ${w.level}: ${w.text}`);
  if (warnings.length > 10) fail(`... and ${warnings.length - 10} more importer warnings`);
}

function baseName(name) {
  if (!isJson) return name;
  // `${event.name} ${JSON.stringify(event.args)}`: find the split where the rest is exactly the args JSON.
  for (let i = name.indexOf(' {'); i >= 0; i = name.indexOf(' {', i + 1)) {
    const rest = name.slice(i + 1);
    try {
      const v = JSON.parse(rest);
      if (v && typeof v === 'object' && !Array.isArray(v) && JSON.stringify(v) === rest) return name.slice(0, i);
    } catch {}
  }
  return name;
}

const frames = new Map(); // base name -> {self, total, full: Set}
let total = 0;
const profileDesc = [];
for (const p of group.profiles) {
  total += p.getTotalWeight();
  profileDesc.push(`${show(p.getName())} total=${p.getTotalWeight()} ${p.getWeightUnit()}`);
  p.forEachFrame(f => {
    const b = baseName(f.name);
    if (!frames.has(b)) frames.set(b, {self: 0, total: 0, full: new Set()});
    const r = frames.get(b);
    r.self += f.getSelfWeight();
    r.total += f.getTotalWeight();
    r.full.add(f.name);
  });
}

const tol = expect.tolerance ?? 1e-6;
const near = (a, b) => Math.abs(a - b) <= tol;
if (expect.profiles !== undefined && group.profiles.length !== expect.profiles) {
  fail(`${group.profiles.length} profile(s), expected ${expect.profiles}: ${profileDesc.join('; ')}`);
}
if (expect.frames !== undefined) {
  const want = new Set(expect.frames);
  for (const n of want) if (!frames.has(n)) fail(`missing frame ${show(n)}`);
  for (const [n, r] of frames) {
    if (!want.has(n)) fail(`unexpected frame ${show(n)}` + (isJson ? ` (speedscope name ${show([...r.full][0])})` : ''));
  }
}
if (expect.total !== undefined && !near(total, expect.total)) {
  fail(`total weight ${total}, expected ${expect.total} (profiles: ${profileDesc.join('; ')})`);
}
for (const [key, label] of [['self', 'self'], ['inclusive', 'total']]) {
  for (const [n, w] of Object.entries(expect[key] ?? {})) {
    const r = frames.get(n);
    if (!r) fail(`no frame ${show(n)} to check the ${key} weight of`);
    else if (!near(r[label], w)) fail(`${key} weight of ${show(n)} is ${r[label]}, expected ${w}`);
  }
}

if (expect.merged) {
  for (const [n, r] of frames) {
    if (r.full.size !== 1) fail(`frame ${show(n)} is ${r.full.size} speedscope frames (args differ per call), expected one: ${show([...r.full].slice(0, 3))}`);
  }
}

for (const n of notes) console.log(`note: ${n}`);
if (errors.length) {
  for (const e of errors) console.log(`FAIL ${filePath}: ${e}`);
  console.log(`check_speedscope: ${errors.length} mismatch(es) in ${filePath}`);
  process.exit(1);
}
console.log(`ok ${filePath}: speedscope ${ss.version} imported it as ${importedAs.join(', ')}: ` +
  `${group.profiles.length} profile(s), ${frames.size} frame name(s), total ${total}, as expected`);
