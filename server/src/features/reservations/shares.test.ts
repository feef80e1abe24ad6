import { fundReservation, splitReturn } from './shares';

const c = (correlationId: string, points: number) => ({ correlationId, points });

describe('splitReturn: proportional, whole points, largest remainder', () => {
  it.each([
    ['one contributor gets everything back', [c('a', 10000)], 2500, [2500]],
    ['exact proportions', [c('a', 6000), c('b', 4000)], 2500, [1500, 1000]],
    ['the larger remainder wins the odd point', [c('a', 2), c('b', 1)], 2, [1, 1]],
    ['larger remainder wins', [c('a', 1), c('b', 3), c('c', 1)], 1, [0, 1, 0]],
    ['tie on remainder: larger contribution wins', [c('a', 2), c('b', 4), c('c', 6)], 3, [0, 1, 2]],
    ['tie on remainder and contribution: smaller id wins', [c('b', 1), c('a', 1)], 1, [0, 1]],
    ['ids compare as strings, not locale', [c('a', 1), c('B', 1)], 1, [0, 1]],
    ['three equal, two points back', [c('m3', 5), c('m1', 5), c('m2', 5)], 2, [0, 1, 1]],
    ['everything back', [c('a', 7), c('b', 3)], 10, [7, 3]],
    ['nothing back', [c('a', 7), c('b', 3)], 0, [0, 0]],
    ['7 over 3:3:1', [c('a', 3), c('b', 3), c('c', 1)], 1, [1, 0, 0]],
  ])('%s', (_name, contributions, difference, expected) => {
    const shares = splitReturn(contributions, difference);
    expect(shares.map((s) => s.points)).toEqual(expected);
    expect(shares.reduce((sum, s) => sum + s.points, 0)).toBe(difference);
  });

  it('stays exact beyond 2^53 intermediate products', () => {
    const big = 900_000_000_000;
    const shares = splitReturn([c('a', big), c('b', big - 1)], big);
    expect(shares[0]!.points + shares[1]!.points).toBe(big);
    expect(shares[0]!.points).toBe(450_000_000_000);
  });

  it('never returns more to a member than it contributed', () => {
    for (let d = 0; d <= 17; d++) {
      const contributions = [c('a', 9), c('b', 5), c('c', 3)];
      splitReturn(contributions, d).forEach((share, i) => {
        expect(share.points).toBeLessThanOrEqual(contributions[i]!.points);
      });
    }
  });

  it('refuses to return more than the reservation holds', () => {
    expect(() => splitReturn([c('a', 1)], 2)).toThrow(RangeError);
  });
});

describe('fundReservation: own points first, then others by available points', () => {
  it.each([
    ['own points suffice', 100, c2('me', 500), [c2('x', 900)], [c('me', 100)]],
    ['then the richest other', 700, c2('me', 500), [c2('x', 100), c2('y', 900)], [c('me', 500), c('y', 200)]],
    ['ties among others by id', 600, c2('me', 500), [c2('y', 300), c2('x', 300)], [c('me', 500), c('x', 100)]],
    ['skips members with nothing', 600, c2('me', 0), [c2('x', 0), c2('y', 600)], [c('y', 600)]],
    ['zero amount needs nobody', 0, c2('me', 0), [], []],
  ])('%s', (_name, amount, self, others, expected) => {
    expect(fundReservation(amount, self, others)).toEqual(expected);
  });

  it('returns null when the household cannot cover it', () => {
    expect(fundReservation(1001, c2('me', 500), [c2('x', 500)])).toBeNull();
  });
});

function c2(correlationId: string, available: number) {
  return { correlationId, available };
}
