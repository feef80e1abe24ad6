import { comparedCpuLimit, comparisonTargetsOf, verdictOf, type Comparison, type Report, type RuntimeReport } from './report';
import type { Summary } from './measure';

/** A runtime whose scenarios A and B were compared with these paired ratios (each run's, their mean the ratio). */
function runtimeWith(ratios: Partial<Record<'A' | 'B', number[]>>, node = 'v26.10.0'): RuntimeReport {
  const compared = (runs: number[]): Comparison => {
    const ratio = runs.reduce((sum, r) => sum + r, 0) / runs.length;
    return { serverUs: 100 * ratio, otherUs: 100, ratio, ratios: runs, allAnswered: true };
  };
  return {
    node,
    processes: 1,
    asked: ['A', 'B'],
    scenarios: (['A', 'B'] as const).map((name) => ({
      name,
      label: name,
      server: {} as Summary,
      ...(ratios[name] && { compared: compared(ratios[name]) }),
    })),
    memory: [],
  };
}

function reportOf(...runtimes: RuntimeReport[]): Report {
  return { machine: {}, options: { compare: '/builds/main/server/dist/main.js' }, mongodb: false, rate: 1000, runtimes, targets: [], checks: [] };
}

describe('the bench against another build (--compare)', () => {
  it.each([
    ['each within the limit', { A: [1.02, 1.04], B: [0.98, 1.0] }, 'Verdict against /builds/main/server/dist/main.js: A 1.03, B 0.99; each within 1.05.'],
    ['one over it', { A: [1.02, 1.04], B: [1.08, 1.1] }, 'Verdict against /builds/main/server/dist/main.js: A 1.03, B 1.09; OVER 1.05: B.'],
    ['exactly at it', { A: [1.05] }, 'Verdict against /builds/main/server/dist/main.js: A 1.05; each within 1.05.'],
  ])('gives a verdict line naming each ratio: %s', (_case, ratios, line) => {
    expect(verdictOf(reportOf(runtimeWith(ratios)))).toBe(line);
  });

  it('names the Node line of each ratio when it ran on several', () => {
    expect(verdictOf(reportOf(runtimeWith({ A: [1.0] }, 'v26.10.0'), runtimeWith({ A: [1.2] }, 'v24.11.0')))).toBe(
      'Verdict against /builds/main/server/dist/main.js: A (Node v26.10.0) 1.00, A (Node v24.11.0) 1.20; OVER 1.05: A (Node v24.11.0).',
    );
  });

  it('gives none without a comparison', () => {
    expect(verdictOf(reportOf(runtimeWith({})))).toBeNull();
  });

  it(`makes each comparison a target of at most ${comparedCpuLimit}, missed when a request went unanswered`, () => {
    const runtime = runtimeWith({ A: [1.0], B: [1.0] });
    runtime.scenarios[1]!.compared!.allAnswered = false;
    expect(comparisonTargetsOf(runtime).map(({ pass, limit }) => ({ pass, limit }))).toEqual([
      { pass: true, limit: '<= 1.05' },
      { pass: false, limit: '<= 1.05' },
    ]);
  });
});
