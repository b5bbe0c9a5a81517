/** Where the server gets the time: Unix seconds. Tests pass a clock they can move. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

export function movableClock(
  start = systemClock.now(),
): Clock & { advance(seconds: number): void; set(t: number): void } {
  let t = start;
  return {
    now: () => t,
    advance: (seconds) => {
      t += seconds;
    },
    set: (value) => {
      t = value;
    },
  };
}
