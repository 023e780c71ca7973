import { demand, processesFor } from '../../bench/capacity-model';

describe('capacity model', () => {
  const costs = {
    submit: { cpuMs: { API: 2, worker: 4 }, rows: { intents: 2, quotes: 1 } },
    event: { cpuMs: { API: 0.5 }, rows: { lock_balances: 1 } },
  };

  test('capacity model: busy cores and writes per second add up over the operations a submit brings', () => {
    expect(demand(1000, costs, { submit: 1, event: 2 })).toEqual({
      cores: { API: 3, worker: 4 },
      writesPerSecond: { intents: 2000, quotes: 1000, lock_balances: 2000 },
    });
  });

  test('capacity model: an operation of the mix that was not measured is an error, not a zero', () => {
    expect(() => demand(1000, costs, { quote: 1 })).toThrow('no measured row for quote');
  });

  test('capacity model: processes keep each at the utilisation asked, at least one', () => {
    expect(processesFor(3)).toBe(5);
    expect(processesFor(3, 0.5)).toBe(6);
    expect(processesFor(0)).toBe(1);
  });
});
