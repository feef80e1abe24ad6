/**
 * Summarises a V8 `.cpuprofile` (written by profile-hook.ts): self time by
 * function and by package, so the hot spots can be read without DevTools.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  byFunction: Array<{ name: string; ms: number; share: number }>;
  byPackage: Array<{ name: string; ms: number; share: number }>;
  /** Time with the function anywhere on the stack (once per sample), for functions of this repository. */
  inclusive: Array<{ name: string; ms: number; share: number }>;
}

export function summariseProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  let total = 0;
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) continue;
    if (frame.functionName === '(idle)') continue;
    total += us;
    const where = frame.url ? `${shortPath(frame.url)}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const pkg = packageOf(frame.url, frame.functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
    // Walk up the stack once; count each of our own functions once per sample.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const caller = nodes.get(at)?.callFrame;
      if (!caller || !/\/server\/dist\//.test(caller.url)) continue;
      const label = `${caller.functionName || '(anonymous)'} ${shortPath(caller.url)}:${caller.lineNumber + 1}`;
      if (seen.has(label)) continue;
      seen.add(label);
      inclusive.set(label, (inclusive.get(label) ?? 0) + us);
    }
  }
  const rank = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: total === 0 ? 0 : us / total }));
  return { totalMs: total / 1000, byFunction: rank(byFunction), byPackage: rank(byPackage), inclusive: rank(inclusive) };
}

function shortPath(url: string): string {
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('node_modules/');
  if (modules >= 0) return file.slice(modules + 'node_modules/'.length);
  const server = file.indexOf('/server/');
  if (server >= 0) return file.slice(server + 1);
  return path.basename(file);
}

function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = file.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? file);
  }
  if (file.startsWith('node:')) return file;
  const server = file.indexOf('/server/dist/');
  if (server >= 0) return `server/${file.slice(server + '/server/dist/'.length).split('/').slice(0, -1).join('/') || '.'}`;
  return file;
}

export function formatProfile(summary: ProfileSummary): string {
  const line = (entry: { name: string; ms: number; share: number }) =>
    `  ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.ms.toFixed(0).padStart(7)} ms  ${entry.name}`;
  return [
    `CPU time (idle excluded): ${summary.totalMs.toFixed(0)} ms`,
    'Self time by package:',
    ...summary.byPackage.map(line),
    'Self time by function:',
    ...summary.byFunction.map(line),
    'Time inside the server\'s own functions (inclusive):',
    ...summary.inclusive.map(line),
  ].join('\n');
}
