import { comparedCpuLimit, comparisonTargetsOf, sweepLine, sweepShareOf, targetsOf, verdictOf, type Comparison, type Report, type RuntimeReport, type ScenarioReport } from './report';
import type { Summary } from './measure';
import type { ScenarioName } from './scenarios';

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

/** A scenario's summary of `responses` answers: its commands per answer (null: not counted) and the outbox sweep's in all. */
function counted(name: ScenarioName, responses: number, commandsPerRequest: number | null, sweepCommands: Array<[string, number]> = []): ScenarioReport {
  const server: Summary = {
    offered: responses,
    answered: responses,
    responses,
    statuses: {},
    cpuUsPerRequest: 1000,
    databaseCpuUsPerRequest: null,
    p50: 2,
    p99: 10,
    commandsPerRequest,
    writesPerRequest: null,
    byCommand: [],
    sweepCommands,
    latency: null,
  };
  return { name, label: name, server };
}

describe("the outbox sweep's commands, counted to the scenarios that change wallets", () => {
  const sweepAfterB: Array<[string, number]> = [
    ['aggregate wallets', 33],
    ['update wallets', 15],
  ];

  it.each<[string, ScenarioReport[], ReturnType<typeof sweepShareOf>]>([
    [
      "summed over every scenario's runs, spread over B's requests (those of B, B-shared and B-fresh)",
      [counted('session', 800, 1.0, sweepAfterB), counted('A', 800, 0.1, [['find wallets', 2]]), counted('B', 800, 2.4), counted('B-shared', 800, 2.4, [['update wallets', 2]])],
      {
        byCommand: [
          ['aggregate wallets', 33],
          ['update wallets', 17],
          ['find wallets', 2],
        ],
        commands: 52,
        requests: 1600,
        perRequest: 52 / 1600,
      },
    ],
    ['no scenario that changes wallets: counted to none', [counted('session', 800, 1.0, [['find wallets', 2]])], { byCommand: [['find wallets', 2]], commands: 2, requests: 0, perRequest: null }],
    ['none sent', [counted('session', 800, 1.0), counted('B', 800, 2.4)], { byCommand: [], commands: 0, requests: 800, perRequest: 0 }],
    ['commands not counted (the embedded store): no share', [counted('session', 800, null), counted('B', 800, null)], undefined],
  ])('%s', (_case, scenarios, share) => {
    expect(sweepShareOf(scenarios)).toEqual(share);
  });

  it("leaves the sweep out of Start Session's target and adds its share to B's", () => {
    const scenarios = [counted('session', 800, 1.0, sweepAfterB), counted('B', 800, 3.96)];
    const runtime: RuntimeReport = { node: 'v26.10.0', processes: 2, asked: ['session', 'B'], scenarios, memory: [], sweep: sweepShareOf(scenarios)! };
    const commandTargets = targetsOf(runtime).filter((c) => c.what.includes('MongoDB commands per request'));
    expect(commandTargets.map(({ what, value, pass }) => ({ what, value, pass }))).toEqual([
      { what: 'Start Session: MongoDB commands per request (Node v26.10.0)', value: '1.00', pass: true },
      { what: 'B, each wallet by one process: MongoDB commands per request (Node v26.10.0)', value: "4.02 (3.96 and the outbox sweep's 0.06)", pass: false },
    ]);
  });

  it.each([
    [
      'counted to B',
      { byCommand: sweepAfterB, commands: 48, requests: 1600, perRequest: 0.03 },
      "The outbox sweep (every process, every 30 s ± 6 s: it clears the outboxes that changes of wallets leave, in whichever run comes next) sent 48 commands in the runs above: left out of each scenario's commands, and counted to the scenarios that change wallets (B, B-shared, B-fresh: 0.03 per request of theirs, 1,600 requests, in their targets).",
    ],
    [
      'counted to none',
      { byCommand: [['find wallets', 2]] as Array<[string, number]>, commands: 2, requests: 0, perRequest: null },
      "The outbox sweep (every process, every 30 s ± 6 s: it clears the outboxes that changes of wallets leave, in whichever run comes next) sent 2 commands in the runs above: left out of each scenario's commands, and counted to no scenario here (none that changes wallets ran).",
    ],
  ])('says in the report how the sweep is counted: %s', (_case, share, line) => {
    expect(sweepLine(share)).toBe(line);
  });
});
